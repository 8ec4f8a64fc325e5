/**
 * What every example shares: the choice between a live OpenAI-compatible model and the offline
 * replay (spec R32), a recorder of what the model received, and printing helpers. Nothing here
 * ships in a package.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import { messageText, messageType, systemText } from "@threadwise/core";
import { createMiddleware } from "langchain";

/** `true` when `OPENAI_API_KEY` or `OPENAI_BASE_URL` is set: the examples then call a live model. */
export function isLive(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.OPENAI_API_KEY || env.OPENAI_BASE_URL);
}

/**
 * A live `ChatOpenAI` (`OPENAI_MODEL`, default `gpt-4o-mini`, temperature 0). `OPENAI_BASE_URL`
 * points it at any OpenAI-compatible server; a server without keys still needs some
 * `OPENAI_API_KEY` value, so a placeholder is used when only the base URL is set.
 */
export async function liveModel(): Promise<BaseChatModel> {
  const { ChatOpenAI } = await import("@langchain/openai");
  return new ChatOpenAI({
    model: process.env.OPENAI_MODEL ?? "gpt-4o-mini",
    temperature: 0,
    apiKey: process.env.OPENAI_API_KEY ?? "not-needed",
    ...(process.env.OPENAI_BASE_URL ? { configuration: { baseURL: process.env.OPENAI_BASE_URL } } : {}),
  });
}

/** The agent's model: live when configured, else the example's offline replay. */
export async function exampleModel(offline: () => BaseChatModel): Promise<{ model: BaseChatModel; live: boolean }> {
  return isLive() ? { model: await liveModel(), live: true } : { model: offline(), live: false };
}

/** What one model call received, as the provider gets it: the system prompt and the messages. */
export interface ModelInput {
  system: string;
  messages: BaseMessage[];
  /** Messages in the stored thread at that call. */
  stored: number;
  /** The stored thread at that call. */
  thread: BaseMessage[];
  /** The tools as given to the model. */
  tools: unknown[];
}

/**
 * A middleware that records every model call's input. Put it LAST in `middleware` (innermost), so
 * it sees the request after every memory middleware shaped it; works with live and offline models.
 */
export function modelInputRecorder() {
  const calls: ModelInput[] = [];
  const middleware = createMiddleware({
    name: "example/model-input-recorder",
    wrapModelCall: (request, handler) => {
      calls.push({
        system: systemText(request.systemMessage),
        messages: [...request.messages],
        stored: (request.state.messages ?? []).length,
        thread: [...(request.state.messages ?? [])],
        tools: [...(request.tools ?? [])],
      });
      return handler(request);
    },
  });
  return { middleware, calls };
}

/** The text cut to `max` characters on one line, with an ellipsis when cut. */
export function preview(text: string, max = 100): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** One line per message: `  [i] human: text…`; tool calls and tool results are named. */
export function formatMessages(messages: readonly BaseMessage[], max = 90): string[] {
  return messages.map((m, i) => {
    const type = messageType(m);
    const calls = (m as { tool_calls?: Array<{ name: string }> }).tool_calls ?? [];
    const text =
      calls.length > 0 ? `${preview(messageText(m), 40)} -> calls ${calls.map((c) => c.name).join(", ")}` : preview(messageText(m), max);
    return `  [${String(i).padStart(2)}] ${type.padEnd(6)} ${text}`;
  });
}

/** The part of a system prompt after the operator's own text: the placed memory blocks and notes. */
export function systemTail(system: string, operatorPrompt: string): string {
  return system.startsWith(operatorPrompt) ? system.slice(operatorPrompt.length).trim() : system;
}

/** `EXAMPLE_ONESHOT=1` (set by the examples test): keep runs short. */
export const ONESHOT = process.env.EXAMPLE_ONESHOT === "1";
