import { AIMessage, type BaseMessage, SystemMessage } from "@langchain/core/messages";
import { viewMessages } from "@threadwise/core";

/** A middleware with a `wrapModelCall` hook (windowTrim, tokenCap, ...). */
interface WrapsModelCall {
  wrapModelCall?: unknown;
}

/**
 * Runs a middleware's `wrapModelCall` alone, without an agent, on a thread with an empty system
 * prompt and no tools; returns the messages the model would get: the request's system message
 * first when it has text (as createAgent's model node sends it), then the request's messages.
 */
export async function viewOf(middleware: WrapsModelCall, messages: BaseMessage[]): Promise<BaseMessage[]> {
  let seen: BaseMessage[] = [];
  const request = { messages, systemMessage: new SystemMessage(""), state: { messages }, tools: [], model: {} };
  // biome-ignore lint/suspicious/noExplicitAny: the hook's request type needs a full agent runtime
  await (middleware.wrapModelCall as any)(request, async (r: { messages: BaseMessage[]; systemMessage: SystemMessage }) => {
    seen = r.systemMessage.text === "" ? r.messages : [r.systemMessage, ...r.messages];
    return new AIMessage("ok");
  });
  return seen;
}

/** What {@link decidedViewOf} returns. */
export interface DecidedView {
  /** What the model gets: the system message first when it has text, then the messages. */
  sent: BaseMessage[];
  /** Core's view of the final request (`viewMessages`): kept messages before role merging, no system messages. */
  view: BaseMessage[];
  /** The one system message of the request. */
  system: SystemMessage;
}

/** Like {@link viewOf}, and also returns the decided view and the system message of the final request. */
export async function decidedViewOf(middleware: WrapsModelCall, messages: BaseMessage[]): Promise<DecidedView> {
  let out: DecidedView | undefined;
  const request = { messages, systemMessage: new SystemMessage(""), state: { messages }, tools: [], model: {} };
  // biome-ignore lint/suspicious/noExplicitAny: the hook's request type needs a full agent runtime
  await (middleware.wrapModelCall as any)(request, async (r: { messages: BaseMessage[]; systemMessage: SystemMessage }) => {
    out = {
      sent: r.systemMessage.text === "" ? r.messages : [r.systemMessage, ...r.messages],
      view: viewMessages(r),
      system: r.systemMessage,
    };
    return new AIMessage("ok");
  });
  if (!out) throw new Error("the middleware did not call its handler");
  return out;
}
