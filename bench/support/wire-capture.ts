/**
 * Provider chat models that send nothing over the network: a real `ChatOpenAI` or `ChatAnthropic`
 * whose `fetch` records the request body (the provider's wire form, exactly as the SDK would send
 * it, tools and `cache_control` included) and answers with a scripted response. Used by
 * `bench/cost.ts` to feed the cache simulator and to time the user's wait for the main call.
 */
import { ChatAnthropic } from "@langchain/anthropic";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ChatOpenAI } from "@langchain/openai";
import type { WireRequest } from "./cache-sim.js";

/** Providers whose wire form can be captured. */
export type WireProvider = "openai" | "anthropic";

/** One scripted answer: text and, optionally, tool calls. */
export interface ScriptedAnswer {
  text: string;
  toolCalls?: Array<{ id: string; name: string; args: Record<string, unknown> }>;
}

/** One captured request, with where and when it was sent. */
export interface CapturedRequest extends WireRequest {
  kind: "main" | "internal";
  /** Thread the replay was on. */
  thread: string;
  /** User turn of the replay (0-based, per replay). */
  turn: number;
  /** Wall-clock time the request was sent (`performance.now()`, ms). */
  wallMs: number;
}

/**
 * The log every captured model of one replay writes to, and the replay's clocks: a virtual clock
 * for cache lifetimes (`at`, set by the replay driver) and the wall clock for the user's wait.
 */
export class WireLog {
  readonly requests: CapturedRequest[] = [];
  /** Virtual send time of the next request (ms): the replay moves it on between user turns. */
  virtualNow = 0;
  thread = "";
  turn = 0;
  private inFlight = 0;
  private waiters: Array<() => void> = [];

  /** Records a request; every request gets a distinct, increasing virtual time. */
  record(kind: "main" | "internal", body: Record<string, unknown>): void {
    this.virtualNow += 1;
    this.requests.push({ kind, body, at: this.virtualNow, thread: this.thread, turn: this.turn, wallMs: performance.now() });
  }

  /** Marks an answer as in progress until the returned function is called. */
  begin(): () => void {
    this.inFlight += 1;
    return () => {
      this.inFlight -= 1;
      if (this.inFlight === 0) for (const wake of this.waiters.splice(0)) wake();
    };
  }

  /** Resolves once no captured model is answering (background internal calls included). */
  idle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function openaiResponse(answer: ScriptedAnswer, id: string): unknown {
  const calls = answer.toolCalls ?? [];
  return {
    id: `chatcmpl-${id}`,
    object: "chat.completion",
    created: 0,
    model: "gpt-4o",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: calls.length > 0 && answer.text === "" ? null : answer.text,
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((c) => ({
                  id: c.id,
                  type: "function",
                  function: { name: c.name, arguments: JSON.stringify(c.args) },
                })),
              }
            : {}),
        },
        finish_reason: calls.length > 0 ? "tool_calls" : "stop",
      },
    ],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

function anthropicResponse(answer: ScriptedAnswer, id: string): unknown {
  const calls = answer.toolCalls ?? [];
  return {
    id: `msg_${id}`,
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5",
    content: [
      ...(answer.text !== "" || calls.length === 0 ? [{ type: "text", text: answer.text }] : []),
      ...calls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.args })),
    ],
    stop_reason: calls.length > 0 ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  };
}

/** Options of {@link captureModel}. */
export interface CaptureModelOptions {
  kind: "main" | "internal";
  /** The answer to a request, from its body. */
  answer: (body: Record<string, unknown>) => ScriptedAnswer;
  /** Time the answer takes, in milliseconds (a slow summarizer). @default 0 */
  delayMs?: number;
}

/**
 * A real provider chat model (`ChatOpenAI` gpt-4o or `ChatAnthropic` claude-sonnet-4-5) whose
 * requests are recorded in `log` and answered by `options.answer`, after `delayMs`.
 */
export function captureModel(provider: WireProvider, log: WireLog, options: CaptureModelOptions): BaseChatModel {
  const fetch = async (_url: unknown, init?: { body?: unknown }) => {
    const body = JSON.parse(String(init?.body ?? "{}")) as Record<string, unknown>;
    log.record(options.kind, body);
    const done = log.begin();
    try {
      if (options.delayMs) await sleep(options.delayMs);
      const answer = options.answer(body);
      // Each answer needs its own id: the agent's message reducer replaces a message with a known id.
      const id = `offline${log.requests.length}`;
      const payload = provider === "openai" ? openaiResponse(answer, id) : anthropicResponse(answer, id);
      return new Response(JSON.stringify(payload), { status: 200, headers: { "content-type": "application/json" } });
    } finally {
      done();
    }
  };
  if (provider === "openai")
    return new ChatOpenAI({ model: "gpt-4o", apiKey: "offline", maxRetries: 0, configuration: { fetch: fetch as never } });
  return new ChatAnthropic({ model: "claude-sonnet-4-5", apiKey: "offline", maxRetries: 0, clientOptions: { fetch: fetch as never } });
}

/** Text of the last message of a request body (OpenAI or Anthropic), content parts joined. */
export function lastMessageText(body: Record<string, unknown>): string {
  const messages = (body.messages as Array<{ content: unknown }> | undefined) ?? [];
  const content = messages.at(-1)?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content.map((part) => (typeof (part as { text?: unknown }).text === "string" ? (part as { text: string }).text : "")).join("");
  return "";
}
