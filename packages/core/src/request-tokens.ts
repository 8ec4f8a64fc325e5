/**
 * Tokens of a model request as the model receives it (spec R3). A view sends copies of stored
 * messages that differ from them (`sent-copies.ts`: portable and unique tool call ids, blank text left
 * out, provider copies of invalid calls dropped; `assemble-view.ts`: roles merged, a reply after
 * stopped results, the stable_tail context on the newest user message), so a budget counted on the
 * stored messages can let a request through over its limit by the tokens those copies add. Every
 * token budget that limits what is sent counts it here, on what core assembled: the messages
 * `withViewDecisions` / `assembledRequest` hand to the model, or `sentMessages` of a view.
 */
import type { BaseMessage, SystemMessage } from "@langchain/core/messages";
import { systemText } from "./placement.js";
import { requestOverheadTokens, type TokenCounter } from "./token-counter.js";

/** The parts of a model request a token budget counts: LangChain's `ModelRequest` fits. */
export interface CountedRequest {
  /** The messages handed to the model (no system message). */
  messages: readonly BaseMessage[];
  /** The one system message; empty text sends none. @default none */
  systemMessage?: SystemMessage;
  /** Tool definitions bound to the call. @default [] */
  tools?: readonly unknown[];
}

/**
 * Tokens of `request` as sent, with `counter`: the system message (when its text is not empty),
 * the tools ({@link TokenCounter.countTools}), every message ({@link TokenCounter.countMessage}) and
 * what the request adds once ({@link requestOverheadTokens}). Pass a request core assembled
 * (`withViewDecisions`, `assembledRequest`): its messages are the copies sent, the stable_tail
 * context on the newest user message included. Exact; uses the counter's caches, which never
 * change a count.
 */
export function requestTokens(counter: TokenCounter, request: CountedRequest): number {
  const tools = request.tools ?? [];
  const system = systemText(request.systemMessage) !== "";
  return (
    (system ? counter.countMessage(request.systemMessage as SystemMessage) : 0) +
    counter.countTools(tools) +
    counter.countMessages(request.messages) +
    requestOverheadTokens({ system, tools: tools.length > 0 })
  );
}

/**
 * An upper bound on {@link requestTokens} read without the tokenizer where the counter gives one
 * (`boundMessage`: UTF-8 bytes of texts not counted yet; tools are counted exactly), so a request
 * well within a budget costs no tokenizing (issue 21). `undefined` for a counter without bounds
 * (a custom `countText`).
 */
export function requestTokenBound(counter: TokenCounter, request: CountedRequest): number | undefined {
  const bound = counter.boundMessage;
  if (!bound) return undefined;
  const tools = request.tools ?? [];
  const system = systemText(request.systemMessage) !== "";
  let total = (system ? bound(request.systemMessage as SystemMessage) : 0) + counter.countTools(tools);
  for (const message of request.messages) total += bound(message);
  return total + requestOverheadTokens({ system, tools: tools.length > 0 });
}
