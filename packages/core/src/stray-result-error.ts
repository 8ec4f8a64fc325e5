import type { BaseMessage, ToolMessage } from "@langchain/core/messages";
import { ThreadwiseError } from "./errors.js";
import { isResultOnly, messageType, toolResultBlocksOf } from "./message-kinds.js";
import type { ThreadIndex } from "./thread-index.js";

/**
 * A model call refused before the model is called because the thread ends on tool results that
 * answer no call (strays: a `ToolMessage`, or a user message of only `tool_result` blocks, whose
 * call id no AI message right before it made), sent as a turn's input
 * (`invoke({ messages: [new ToolMessage({ tool_call_id: "call_gone", ... })] })`, an `updateState`
 * then `invoke(null)`), or written by a tool whose `Command` update removed its own call
 * (`messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), result]`, langgraph#5678). Every provider refuses a result with no call right before it, so the view
 * leaves strays out (spec R4); with the thread's input left out, the request would end on the
 * thread's last AI message, which newer Anthropic models refuse (no prefill) and others continue
 * as if the user had said nothing, or (a new thread) hold no message, which every provider refuses. Nothing is lost: the thread keeps the strays as stored (a view
 * leaves them out), and the next turn with a user message goes on. Not retryable as is: send the
 * result right after the AI message whose call it answers (with that call's id), or as the user's
 * words. `messageIds` are the strays' ids (at most 10), `callIds` the call ids they name.
 */
export class ThreadwiseStrayResultError extends ThreadwiseError {
  readonly messageIds: readonly string[];
  readonly callIds: readonly string[];
  readonly retryable = false;
  constructor(messageIds: readonly string[], callIds: readonly string[]) {
    const shown = messageIds.slice(0, 10);
    super(
      "THREADWISE_STRAY_RESULT",
      `the thread ends on tool result(s) ${shown.map((id) => JSON.stringify(id)).join(", ")} answering call id(s) ${callIds
        .slice(0, 10)
        .map((id) => JSON.stringify(id))
        .join(
          ", ",
        )} that no AI message right before made (the turn's input, or a tool's Command update that removed their call): every provider refuses them, and without them the request would end on an AI message or hold none; ` +
        "send a result right after the AI message whose call it answers, or the user's words as a HumanMessage",
    );
    this.messageIds = shown;
    this.callIds = callIds.slice(0, 10);
  }
  static override isInstance(error: unknown): error is ThreadwiseStrayResultError {
    return ThreadwiseError.isInstance(error) && error.code === "THREADWISE_STRAY_RESULT";
  }
}

/**
 * Refuses an assembled request (`sent`, the messages the model would receive) that ends on an AI
 * message, or holds none, because the view left out the stray results the `thread` (indexed by
 * `index`) ends on.
 * O(1) unless the request ends on an AI message and the thread on a result.
 * @throws ThreadwiseStrayResultError
 * @internal
 */
export function refuseStrayTail(sent: readonly BaseMessage[], thread: readonly BaseMessage[], index: () => ThreadIndex): void {
  const last = sent.at(-1);
  const stored = thread.at(-1);
  if (stored === undefined || (last !== undefined && messageType(last) !== "ai") || !isResultOnly(stored)) return;
  const excluded = index().excluded;
  const strays: BaseMessage[] = [];
  let e = excluded.length - 1;
  for (let p = thread.length - 1; p >= 0 && e >= 0 && excluded[e] === p && isResultOnly(thread[p] as BaseMessage); p -= 1, e -= 1)
    strays.unshift(thread[p] as BaseMessage);
  if (strays.length === 0) return;
  const callIds = strays.flatMap((m) =>
    messageType(m) === "tool" ? [(m as ToolMessage).tool_call_id ?? ""] : toolResultBlocksOf(m).map((block) => block.id),
  );
  throw new ThreadwiseStrayResultError(
    strays.map((m) => m.id ?? ""),
    callIds,
  );
}
