/** Fake chat models and a deterministic token counter for offline tests. */
import { AIMessage, type BaseMessage, type SystemMessage } from "@langchain/core/messages";
import { type FakeBuiltModel, fakeModel } from "@langchain/core/testing";
import { messageType } from "../message-kinds.js";
import { requestTokens } from "../request-tokens.js";
import { createTokenCounter, type TokenCounter, type TokenCounterOptions } from "../token-counter.js";
import { PROVIDERS, type Provider } from "./provider-validator.js";
import { SELF_REQUEUING_FACTORIES, type StrictFakeModel, type StrictModelOptions, withProviderCheck } from "./strict-model.js";

/**
 * Providers whose rules {@link scriptedModel} and {@link replayModel} check when none are given:
 * OpenAI's (orphans, unanswered calls, duplicated results, tool-call ids). The Anthropic, Gemini
 * and Bedrock rules are checked by {@link strictModel}, and by the repository's stack property and
 * tau-bench sweeps; they join this default once every view starts on a user message (issue 12:
 * with `startOn` left at `"any"` a window can start on an AI message, which those three refuse).
 */
export const FAKE_MODEL_PROVIDERS: readonly Provider[] = ["openai"];

/** Options of the fake models: the provider check of {@link withProviderCheck}, on by default. */
export interface FakeModelOptions extends StrictModelOptions {
  /** `false`: accept any request, as `fakeModel()` does (refusals are still recorded in `providerLog`). @default true */
  strict?: boolean;
}

function checked(model: FakeBuiltModel, options: FakeModelOptions): StrictFakeModel {
  const { strict, ...check } = options;
  const providers = check.providers ?? FAKE_MODEL_PROVIDERS;
  return withProviderCheck(model, strict === false ? { ...check, providers, onViolation: "record" } : { ...check, providers });
}

/** One recorded assistant turn: text and, optionally, tool calls with their ids. */
export interface RecordedAssistantTurn {
  content: string;
  toolCalls?: Array<{ id: string; name: string; args: Record<string, unknown> }>;
}

/**
 * A chat model that answers with recorded assistant turns, in order: `fakeModel()` with the
 * queue filled. Its `.calls` shows exactly what each call received. Throws when the recording is
 * used up, like `fakeModel()`. Strict by default: a request the providers of `options.providers`
 * (default {@link FAKE_MODEL_PROVIDERS}) would refuse fails the call with `ProviderRequestError`
 * (see {@link withProviderCheck}); `providerLog` counts requests and refusals.
 */
export function replayModel(turns: readonly RecordedAssistantTurn[], options: FakeModelOptions = {}): StrictFakeModel {
  const model = fakeModel();
  for (const turn of turns) {
    model.respond(
      new AIMessage({
        content: turn.content,
        tool_calls: (turn.toolCalls ?? []).map((call) => ({ id: call.id, name: call.name, args: call.args, type: "tool_call" as const })),
      }),
    );
  }
  return checked(model, options);
}

/**
 * A model whose every answer is computed from what it received, for tests and offline examples
 * that run any number of turns. `answer` gets the messages of the model call (the view the
 * middlewares built, system message first) and the 0-based call number, and returns the answer's
 * text, a whole `AIMessage` (e.g. with `tool_calls`), or an `Error` to throw. Records calls like
 * `fakeModel()` (`.calls`). Strict by default, like {@link replayModel}: `{ strict: false }` accepts
 * any request.
 *
 * @example
 * ```ts
 * import { scriptedModel } from "@threadwise/core/testing";
 *
 * const model = scriptedModel((messages, call) => `answer ${call + 1} after ${messages.length} messages`);
 * ```
 */
export function scriptedModel(
  answer: (messages: BaseMessage[], call: number) => string | AIMessage | Error,
  options: FakeModelOptions = {},
): StrictFakeModel {
  const model = fakeModel();
  let call = 0;
  const factory = (messages: BaseMessage[]) => {
    const result = answer(messages, call);
    call += 1;
    // Queue the next answer before returning, so the model never runs dry.
    model.respond(factory);
    return typeof result === "string" ? new AIMessage(result) : result;
  };
  SELF_REQUEUING_FACTORIES.add(factory);
  model.respond(factory);
  return checked(model, options);
}

/**
 * A fake chat model that refuses what any of OpenAI, Anthropic, Gemini and Bedrock refuses (or
 * the `providers` given) and answers with `answer(messages, call)` (default `"ok"`):
 * {@link scriptedModel}, strict, every provider.
 *
 * @example
 * const model = strictModel({ answer: () => "Noted." });
 */
export function strictModel(
  options: StrictModelOptions & { answer?: (messages: BaseMessage[], call: number) => string | AIMessage | Error } = {},
): StrictFakeModel {
  const { answer, ...check } = options;
  return scriptedModel(answer ?? (() => "ok"), { ...check, providers: check.providers ?? PROVIDERS });
}

/** What {@link repeatedCallIdModel} answers. */
export interface RepeatedCallIdScript {
  /** Name of the tool it calls. */
  tool: string;
  /** Id of every call it makes. @default "call_0" */
  id?: string;
  /** Arguments of the call made at the 0-based model call `call`. */
  args: (call: number) => Record<string, unknown>;
  /** Text of the answer at model call `call`, given once the tool's result came back. */
  answer: (call: number) => string;
}

/**
 * A {@link scriptedModel} that numbers its tool calls per answer, as Grok over Chat Completions
 * does (https://github.com/NVIDIA-NeMo/Switchyard/issues/502): answering a user message it calls
 * `script.tool` once, with id `script.id` (`call_0`) on every turn; answering anything else (the
 * tool's result) it says `script.answer(call)`. A thread of it stores one call id in many AI
 * messages, which core sends renamed from the second on (`withUniqueCallIds`: 26 characters of the
 * id, `_r` and 12 hex characters), so a request costs more tokens than its stored messages.
 *
 * @example
 * const model = repeatedCallIdModel({ tool: "lookup", args: (n) => ({ q: `booking ${n}` }), answer: (n) => `Booking ${n} checked.` });
 */
export function repeatedCallIdModel(script: RepeatedCallIdScript, options: FakeModelOptions = {}): StrictFakeModel {
  const id = script.id ?? "call_0";
  return scriptedModel((messages, call) => {
    const last = messages.at(-1);
    if (last && messageType(last) === "human")
      return new AIMessage({ content: "", tool_calls: [{ id, name: script.tool, args: script.args(call), type: "tool_call" }] });
    return script.answer(call);
  }, options);
}

/**
 * Tokens of a request as a fake model received it (one entry of its `.calls`: the system message
 * first when there is one, then the messages), counted by core's `requestTokens` with a fresh
 * counter of `encoding` and the `tools` bound to the call: the oracle a token budget
 * (`tokenCap({ maxTokens })`) is checked against, with no cache of the middleware's.
 */
export function receivedRequestTokens(
  messages: readonly BaseMessage[],
  options: { tools?: readonly unknown[]; encoding?: TokenCounterOptions["encoding"] } = {},
): number {
  const [first, ...rest] = messages;
  const system = first && messageType(first) === "system";
  return requestTokens(createTokenCounter(options.encoding ? { encoding: options.encoding } : {}), {
    messages: system ? rest : messages,
    ...(system ? { systemMessage: first as SystemMessage } : {}),
    tools: options.tools ?? [],
  });
}

/** A token counter with one token per 4 characters (rounded up) plus core's framing constants: easy to reason about in tests. */
export function characterTokenCounter(): TokenCounter {
  return createTokenCounter({ countText: (text) => Math.ceil(text.length / 4) });
}
