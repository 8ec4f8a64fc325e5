import { ThreadwiseError } from "@threadwise/core";

/**
 * Why a write was refused for reaching into archived messages (spec R37, R38):
 * - `archived-edit`: an `updateState` (or a fork's update), or a run's input, carries a message
 *   (or a `RemoveMessage`) whose id is in the thread's archive and not in its hot part. LangGraph's
 *   `messages` reducer would append it as a new message at the end instead of replacing the
 *   archived one in place, so the thread would change order silently (a removal would fail in the
 *   reducer); refused instead. Also, on a branch forked from before an archiving (whose hot part
 *   holds archived messages again), a `RemoveMessage` of one of them or an edit in place (its id
 *   with other content): that branch's archiving would rewrite the archived row all branches read;
 *   and a fork from a checkpoint whose branch edited a message in place before another branch
 *   archived the original (its hot copy differs from the archived one).
 * - `archived-fork`: a fork, replay or `updateState` from an older checkpoint whose hot part is
 *   older than messages archived since: the archive holds messages of the other branch that this
 *   branch never had, so reading the branch back would mix the two; refused instead. Also a fork
 *   whose hot part holds the archived messages again with others between them (the other branch
 *   removed those before archiving; `messageIds` from the first archived one out of place): its
 *   thread does not begin with the archive, and its own archiving would append the others at the
 *   archive's end. Also a fork whose branch did not archive what was archived since its
 *   checkpoint (the checkpoint's `threadwise_archive` mark: the rows archived after it are not its
 *   hot part's opening run), e.g. a message it removed that another branch archived later. Also a
 *   fork from before a rewrite that emptied the archive (`messageIds` empty): its older messages
 *   are gone.
 */
export type ArchivedMessageReason = "archived-edit" | "archived-fork";

/**
 * A write reaching into archived messages, refused with nothing stored (`archive: true`). Not
 * retryable: edit messages that are still in the hot part, rewrite the thread to change an archived
 * one (`RemoveMessage({ id: REMOVE_ALL_MESSAGES })`, then the thread as read back by `readThread`,
 * edited), or fork from a checkpoint at or after the last archiving; the message says which (see
 * the memory README, "Archive").
 */
export class ThreadwiseArchivedMessageError extends ThreadwiseError {
  readonly threadId: string;
  readonly reason: ArchivedMessageReason;
  /** The archived message ids involved (at most 10). */
  readonly messageIds: readonly string[];
  readonly retryable = false;
  constructor(threadId: string, reason: ArchivedMessageReason, messageIds: readonly string[]) {
    const shown = messageIds.slice(0, 10);
    super(
      "THREADWISE_ARCHIVED_MESSAGE",
      reason === "archived-edit"
        ? `thread ${JSON.stringify(threadId)}: message(s) ${shown.map((id) => JSON.stringify(id)).join(", ")} are archived and cannot be edited by id; only messages still in the hot part can. To change an archived message, rewrite the thread: read it with checkpointer.readThread(config), then send RemoveMessage({ id: REMOVE_ALL_MESSAGES }) followed by the messages as they should read`
        : shown.length === 0
          ? `thread ${JSON.stringify(threadId)}: the checkpoint forked from predates a rewrite of the thread, which emptied the archive its older messages were in; fork from a checkpoint after the rewrite`
          : `thread ${JSON.stringify(threadId)}: the checkpoint forked from predates archived message(s) ${shown.map((id) => JSON.stringify(id)).join(", ")} of another branch; fork from a checkpoint at or after the last archiving, or start a new thread with what checkpointer.readThread({ configurable: { thread_id, checkpoint_id } }) returns for this checkpoint`,
    );
    this.threadId = threadId;
    this.reason = reason;
    this.messageIds = shown;
  }
  static override isInstance(error: unknown): error is ThreadwiseArchivedMessageError {
    return ThreadwiseError.isInstance(error) && error.code === "THREADWISE_ARCHIVED_MESSAGE";
  }
}
