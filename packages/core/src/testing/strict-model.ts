/**
 * Test doubles that refuse what providers refuse: a fake chat model that checks every request it
 * receives ({@link withProviderCheck}, {@link strictModel}) and an innermost middleware that
 * checks every request an agent is about to send ({@link providerProbe}). Both record what they
 * saw in a {@link ProviderLog}.
 */
import { AIMessage, type BaseMessage, type SystemMessage } from "@langchain/core/messages";
import type { FakeBuiltModel } from "@langchain/core/testing";
import { createMiddleware } from "langchain";
import {
  PROVIDERS,
  type Provider,
  type ProviderCheckOptions,
  ProviderRequestError,
  type ProviderViolation,
  validateProviderRequest,
} from "./provider-validator.js";

/** Options of the strict doubles. */
export interface StrictModelOptions extends ProviderCheckOptions {
  /**
   * `"throw"`: a refused request fails the model call with {@link ProviderRequestError}, as the
   * provider would. `"record"`: the call goes on and the refusal is only recorded (sweeps that
   * count rejections). @default "throw"
   */
  onViolation?: "throw" | "record";
}

/** One refused request. */
export interface ProviderRejection {
  /** 0-based number of the request among those checked. */
  request: number;
  violations: ProviderViolation[];
}

/** What a strict double checked: requests seen and the refusals among them. */
export class ProviderLog {
  /** Requests checked. */
  requests = 0;
  /** Refused requests, in order. */
  readonly rejected: ProviderRejection[] = [];
  readonly providers: readonly Provider[];
  readonly onViolation: "throw" | "record";
  /** Whether a request ending on an AI message is refused ({@link ProviderCheckOptions.noPrefill}). */
  readonly noPrefill: boolean;
  constructor(options: StrictModelOptions = {}) {
    this.providers = options.providers ?? PROVIDERS;
    this.onViolation = options.onViolation ?? "throw";
    this.noPrefill = options.noPrefill ?? false;
  }
  /** Number of refused requests. */
  get rejections(): number {
    return this.rejected.length;
  }
  /** Refused requests per provider (a request refused by two providers counts for both). */
  rejectionsByProvider(): Record<Provider, number> {
    const out = { openai: 0, anthropic: 0, gemini: 0, bedrock: 0 };
    for (const r of this.rejected) for (const p of new Set(r.violations.map((v) => v.provider))) out[p] += 1;
    return out;
  }
  /**
   * Checks one request and records it; returns its violations (empty when accepted).
   * @throws ProviderRequestError when refused and `onViolation` is `"throw"`.
   */
  check(messages: readonly BaseMessage[]): ProviderViolation[] {
    const request = this.requests;
    this.requests += 1;
    const violations = validateProviderRequest(messages, { providers: this.providers, noPrefill: this.noPrefill });
    if (violations.length > 0) {
      this.rejected.push({ request, violations });
      if (this.onViolation === "throw") throw new ProviderRequestError(violations);
    }
    return violations;
  }
}

type QueueEntry =
  | { kind: "factory"; factory: (messages: BaseMessage[]) => BaseMessage | Error }
  | { kind: "message"; message: BaseMessage }
  | { kind: "error"; error: Error }
  | { kind: "toolCalls"; toolCalls: NonNullable<AIMessage["tool_calls"]> };

/**
 * Factories that queue their own successor when they answer ({@link scriptedModel}'s). A refused
 * request never reaches the factory, so {@link withProviderCheck} queues it again for them:
 * otherwise one refusal left the model with nothing queued, and every later call of the test
 * failed with `FakeModel: no response queued`, hiding what the later requests were.
 * Internal to `@threadwise/core/testing`.
 */
export const SELF_REQUEUING_FACTORIES = new WeakSet<object>();

/** A fake model with the request log of {@link withProviderCheck}. */
export type StrictFakeModel<M extends FakeBuiltModel = FakeBuiltModel> = M & { readonly providerLog: ProviderLog };

/**
 * Makes a `fakeModel()` (from `@langchain/core/testing`; `scriptedModel` and
 * `replayModel` already are) check every request it receives against the provider rules before answering:
 * a refused request fails the call with {@link ProviderRequestError} (or is recorded, with
 * `onViolation: "record"`). Works through `bindTools` (the bound copy shares the queue). Queued
 * `respondWithTools` entries answer with empty content. Returns the same model object.
 *
 * @example
 * const model = withProviderCheck(fakeModel().respond(new AIMessage("hi")));
 * await createAgent({ model, tools: [] }).invoke({ messages: [new HumanMessage("hello")] });
 * model.providerLog.rejections; // 0
 */
export function withProviderCheck<M extends FakeBuiltModel>(model: M, options: StrictModelOptions = {}): StrictFakeModel<M> {
  const log = new ProviderLog(options);
  const internals = model as unknown as { queue: QueueEntry[] };
  const wrap = (entry: QueueEntry): QueueEntry => ({
    kind: "factory",
    factory: (messages) => {
      try {
        log.check(messages);
      } catch (error) {
        if (entry.kind === "factory" && SELF_REQUEUING_FACTORIES.has(entry.factory)) internals.queue.push(wrap(entry));
        return error as Error;
      }
      if (entry.kind === "factory") return entry.factory(messages);
      if (entry.kind === "message") return entry.message;
      if (entry.kind === "error") return entry.error;
      return new AIMessage({ content: "", tool_calls: entry.toolCalls });
    },
  });
  // In place: copies made by bindTools share this array.
  internals.queue.splice(0, internals.queue.length, ...internals.queue.map(wrap));
  const wrapLast = () => {
    const queue = internals.queue;
    queue[queue.length - 1] = wrap(queue[queue.length - 1] as QueueEntry);
  };
  const target = model as FakeBuiltModel;
  const respond = model.respond.bind(model);
  const respondWithTools = model.respondWithTools.bind(model);
  target.respond = ((entry: Parameters<FakeBuiltModel["respond"]>[0]) => {
    respond(entry);
    wrapLast();
    return model;
  }) as FakeBuiltModel["respond"];
  target.respondWithTools = ((calls: Parameters<FakeBuiltModel["respondWithTools"]>[0]) => {
    respondWithTools(calls);
    wrapLast();
    return model;
  }) as FakeBuiltModel["respondWithTools"];
  return Object.assign(model, { providerLog: log });
}

/** The model input `createAgent` sends for a request: the system message unless its text is empty, then the messages. */
export function requestInput(request: { systemMessage?: SystemMessage; messages: readonly BaseMessage[] }): BaseMessage[] {
  const system = request.systemMessage;
  return [...(system && system.text !== "" ? [system] : []), ...request.messages];
}

/**
 * An innermost middleware that checks every request the agent is about to send, whatever the
 * model is: put it last in `middleware`. Its `log` counts requests and refusals; with
 * `onViolation: "throw"` (the default) a refused request fails the model call.
 *
 * @example
 * const probe = providerProbe({ onViolation: "record" });
 * createAgent({ model, middleware: [windowTrim(), summarize({ model }), probe] });
 * probe.log.rejections; // 0
 */
export function providerProbe(options: StrictModelOptions = {}) {
  const log = new ProviderLog(options);
  const middleware = createMiddleware({
    name: "threadwise/provider-probe",
    wrapModelCall: (request, handler) => {
      log.check(requestInput(request));
      return handler(request);
    },
  });
  return Object.assign(middleware, { log });
}
