import type { BaseMessage } from "@langchain/core/messages";
import type { StartOn } from "./assemble-view.js";
import type { ArchivedWindow } from "./summary-slot.js";

/** Options of an {@link ArchivedMessagesReader} call. */
export interface ArchivedMessagesReadOptions {
  /** Read only the newest `last` archived messages (a positive integer). @default every archived message */
  last?: number;
}

/**
 * Reads a thread's archived messages, oldest first (issue 27): messages that left the stored
 * thread (the checkpoint's `messages`) but are kept elsewhere, e.g. `@threadwise/memory`'s
 * `(threadId, options) => checkpointer.archivedMessages(threadId, options)`. Some may also still be
 * stored (a crash between the archive write and the checkpoint write); {@link withArchived}
 * dedupes them. With `options.last`, at most the newest `last` archived messages (a reader that
 * ignores it and returns them all is correct too, only slower).
 */
export type ArchivedMessagesReader = (threadId: string, options?: ArchivedMessagesReadOptions) => Promise<readonly BaseMessage[]>;

/**
 * Reads the digests of the messages a thread's archive held when its latest rewrite
 * (`REMOVE_ALL_MESSAGES`, then the thread as it should read) emptied it, oldest first, as one
 * string of summarize's 8-character `coveredDigestOf` digests; `undefined` when no rewrite emptied
 * it (issue 27, R37). E.g. `@threadwise/memory`'s `(threadId, since) => checkpointer.archiveClearedDigests(threadId, since)`.
 * A rewrite that brings archived messages back into the checkpoint is told apart from an edit of
 * them with it: the archived messages are gone, their digests are what is left of them.
 * With `since` (a checkpoint id of the thread, e.g. where a reader last looked: {@link runCheckpointIdOf}),
 * `undefined` also when that checkpoint's archive held no message or no rewrite emptied it after
 * that checkpoint: the digests are then an older rewrite's, which the reader already saw the
 * thread after. A reader that ignores `since` gives the latest rewrite's digests whenever (correct
 * only for a caller that needs no more).
 */
export type ArchiveClearedDigestsReader = (threadId: string, since?: string) => Promise<string | undefined>;

/**
 * Which of `messageIds` the thread's message archive holds now, in the order given (memory's
 * `ThreadwiseSaver.archivedAmong`: one indexed lookup, nothing decoded). A message the archive
 * holds left the checkpoint through archiving, not a removal: the archive refuses removing or
 * editing an archived id, and a rewrite empties it. factRecall and userMemory (`archivedAmong`)
 * keep what such a message said (R37).
 */
export type ArchivedAmongReader = (threadId: string, messageIds: readonly string[]) => Promise<string[]>;

/**
 * Where an {@link ArchivedChangesReader} left off: opaque, meaningful only to the reader (and
 * process) that returned it.
 */
export interface ArchiveCursor {
  readonly __archiveCursor: unique symbol;
}

/** What an {@link ArchivedChangesReader} returns. */
export interface ArchivedChanges {
  /** Pass back as `since` at the next read of the same thread. */
  cursor: ArchiveCursor;
  /**
   * `true`: `messages` are the archived messages after the ones read up to `since`, which are
   * unchanged (a pure append, or nothing new: `[]`). `false`: `messages` is the whole archive,
   * oldest first (no `since`, or the archive is not a pure append of what `since` saw: a rewrite
   * emptied it, the thread was deleted, a row was written again, the reader no longer knows the
   * cursor).
   */
  appended: boolean;
  messages: readonly BaseMessage[];
}

/**
 * Reads what a thread's archive gained since a cursor (issue 27), e.g. `@threadwise/memory`'s
 * `(threadId, since) => checkpointer.archivedChanges(threadId, since)`: what a reader that searches
 * the archive at every model call (recall) uses to pay for the rows archived since, not for the
 * whole archive. Appending `messages` to what was read up to `since` (or taking them alone when
 * `appended` is `false`) gives exactly what an {@link ArchivedMessagesReader} returns.
 */
export type ArchivedChangesReader = (threadId: string, since?: ArchiveCursor) => Promise<ArchivedChanges>;

/**
 * The whole thread: `archived` then `stored`, each message once. An archived message whose id is
 * also stored is left out of the archived part: the stored copy wins, where it stands. Returns
 * `stored` itself when `archived` is empty. Pure; O(archived + stored).
 */
export function withArchived(archived: readonly BaseMessage[], stored: readonly BaseMessage[]): readonly BaseMessage[] {
  if (archived.length === 0) return stored;
  const inStore = new Set<string>();
  for (const message of stored) if (typeof message.id === "string") inStore.add(message.id);
  const out: BaseMessage[] = [];
  for (const message of archived) if (typeof message.id !== "string" || !inStore.has(message.id)) out.push(message);
  for (const message of stored) out.push(message);
  return out;
}

/**
 * The message right before `stored` in the whole thread ({@link withArchived}): the newest archived
 * message that is not also stored, or `undefined` when there is none. Reads the newest archived
 * message (`last: 1`); when it is also stored (a crash left it in both places, or the archiving
 * call's removal is not stored yet), the newest 8, 64, ... until one is not stored or the archive
 * is read whole. O(1) reads and messages usually; O(stored) to look the ids up.
 */
export async function newestArchivedBefore(
  read: ArchivedMessagesReader,
  threadId: string,
  stored: readonly BaseMessage[],
): Promise<BaseMessage | undefined> {
  let inStore: Set<string> | undefined;
  for (let last = 1; ; last *= 8) {
    const archived = await read(threadId, { last });
    const newest = archived.at(-1);
    if (newest === undefined) return undefined;
    if (inStore === undefined) {
      const id = newest.id;
      if (typeof id !== "string" || !stored.some((message) => message.id === id)) return newest;
      inStore = new Set();
      for (const message of stored) if (typeof message.id === "string") inStore.add(message.id);
    }
    const tail = archived.length > last ? archived.slice(archived.length - last) : archived;
    for (let i = tail.length - 1; i >= 0; i -= 1) {
      const message = tail[i] as BaseMessage;
      if (typeof message.id !== "string" || !inStore.has(message.id)) return message;
    }
    // Every one read is stored: the archive is read whole when it holds no more than that.
    if (archived.length < last) return undefined;
  }
}

/**
 * Where LangGraph 1.x puts the checkpointer a run stores its checkpoints with, in every task's
 * `configurable` (`CONFIG_KEY_CHECKPOINTER`; also how a run is given a checkpointer at invoke).
 */
const RUN_CHECKPOINTER_KEY = "__pregel_checkpointer";

/** The checkpointer the run of a hook stores to (`runtime.configurable.__pregel_checkpointer`), `undefined` outside a run. */
export function runCheckpointerOf(runtime: unknown): unknown {
  return (runtime as { configurable?: Record<string, unknown> } | undefined)?.configurable?.[RUN_CHECKPOINTER_KEY];
}

/**
 * The id of the root checkpoint a hook's task runs from (LangGraph 1.x's
 * `runtime.configurable.checkpoint_map[""]`: the checkpoint whose state the task reads), or
 * `undefined` outside a checkpointed run.
 */
export function runCheckpointIdOf(runtime: unknown): string | undefined {
  const map = (runtime as { configurable?: Record<string, unknown> } | undefined)?.configurable?.checkpoint_map;
  const id = (map as Record<string, unknown> | undefined)?.[""];
  return typeof id === "string" && id !== "" ? id : undefined;
}

/** Most wrappers followed through `inner` before giving up (a cycle, or a chain nobody writes). */
const MAX_WRAPPERS = 8;

/**
 * The first saver of `checkpointer`'s chain that `match` accepts: itself, or one down the chain
 * of `inner` savers (`encryptCheckpointer`'s `EncryptedCheckpointSaver` and `@threadwise/memory`'s
 * `ThreadwiseSaver` name what they wrap `inner`). `undefined` when the chain ends without one.
 */
export function saverInChain<T>(checkpointer: unknown, match: (saver: object) => saver is T & object): T | undefined {
  let saver = checkpointer;
  for (let depth = 0; depth <= MAX_WRAPPERS && typeof saver === "object" && saver !== null; depth += 1) {
    if (match(saver)) return saver;
    saver = (saver as { inner?: unknown }).inner;
  }
  return undefined;
}

/**
 * The archive reader of the checkpointer a hook's run stores to (issue 27): the
 * `archivedMessages` of the first saver down its `inner` chain that keeps an archive
 * (`@threadwise/memory`'s `ThreadwiseSaver`), whatever the stack that archived was; `undefined`
 * when the run has no checkpointer or none in its chain keeps an archive.
 */
export function runArchiveReader(runtime: unknown): ArchivedMessagesReader | undefined {
  const saver = saverInChain(
    runCheckpointerOf(runtime),
    (candidate): candidate is { archivedMessages: ArchivedMessagesReader } =>
      typeof (candidate as { archivedMessages?: unknown }).archivedMessages === "function",
  );
  return saver ? (threadId, options) => saver.archivedMessages(threadId, options) : undefined;
}

/**
 * The archived part's window cost for a chunked window over `stored`, the hot part (issue 27,
 * R35: `SelectViewOptions.costBefore`): `mark.messages` when the slot's mark (memory's
 * `messageArchive` writes it with each batch, {@link ArchivedWindow}) was counted under `startOn`
 * and the archive still ends where it did then (the newest archived message not stored,
 * {@link newestArchivedBefore}, is `mark.throughId`); else `undefined`, the count starts at the
 * hot part's first user message as before (no mark: an archive written before the mark existed,
 * or none yet; a rewrite that emptied the archive, which may have archived again since without a
 * mark). From stored state only (the slot, the archive): a fresh process reads the same. One
 * read of the archive's newest message when there is a mark, none without.
 */
export async function archivedWindowCost(
  read: ArchivedMessagesReader,
  threadId: string,
  stored: readonly BaseMessage[],
  mark: ArchivedWindow | undefined,
  startOn: StartOn,
): Promise<number | undefined> {
  if (mark === undefined || mark.startOn !== startOn || threadId === "") return undefined;
  return markedWindowCost(mark, startOn, await newestArchivedBefore(read, threadId, stored));
}

/**
 * {@link archivedWindowCost}'s answer from the archive's newest message not stored, already read
 * by the caller ({@link newestArchivedBefore}; `undefined`: none): `mark.messages` when `mark` was
 * counted under `startOn` and `newest` is its `throughId`, else `undefined`. Pure; for a caller that
 * reads that message for another check too (memory's `messageArchive`), so it is read once.
 */
export function markedWindowCost(mark: ArchivedWindow | undefined, startOn: StartOn, newest: BaseMessage | undefined): number | undefined {
  if (mark === undefined || mark.startOn !== startOn) return undefined;
  return newest?.id === mark.throughId ? mark.messages : undefined;
}
