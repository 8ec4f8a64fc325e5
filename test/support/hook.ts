import { AIMessage, type BaseMessage, SystemMessage } from "@langchain/core/messages";

/** A middleware with a `wrapModelCall` hook (windowTrim, tokenCap, ...). */
interface WrapsModelCall {
  wrapModelCall?: unknown;
}

/**
 * Runs a middleware's `wrapModelCall` alone, without an agent, on a thread with an empty system
 * prompt and no tools; returns the messages the model would get.
 */
export async function viewOf(middleware: WrapsModelCall, messages: BaseMessage[]): Promise<BaseMessage[]> {
  let seen: BaseMessage[] = [];
  const request = { messages, systemMessage: new SystemMessage(""), state: { messages }, tools: [], model: {} };
  // biome-ignore lint/suspicious/noExplicitAny: the hook's request type needs a full agent runtime
  await (middleware.wrapModelCall as any)(request, async (r: { messages: BaseMessage[] }) => {
    seen = r.messages;
    return new AIMessage("ok");
  });
  return seen;
}
