/**
 * Observers for the stack-wide tests (issue 9): an outermost middleware that proves no inner
 * middleware mutates the stored messages during a model call, an innermost one that records what
 * the model call is about to send (stored thread, tools, system message, messages), and a
 * provider-shaped rendering of a model input for byte comparisons.
 */
import type { BaseMessage, SystemMessage } from "@langchain/core/messages";
import { messageType, toolCallsOf } from "@threadwise/core";
import { createMiddleware } from "langchain";

/** One model call as the innermost middleware saw it. */
export interface SpiedCall {
  /** The stored thread at the time of the call (`request.state.messages`). */
  stored: BaseMessage[];
  /** The final request's messages (view plus any stable_tail context message). */
  messages: BaseMessage[];
  systemMessage: SystemMessage;
  tools: unknown[];
}

/** The parts of a message a provider sees, plus the id when `withId`. Deterministic JSON. */
export function messageSnapshot(message: BaseMessage, withId = true): Record<string, unknown> {
  const m = message as BaseMessage & { tool_call_id?: string; name?: string };
  const type = messageType(message);
  return {
    type,
    ...(withId ? { id: m.id ?? null } : {}),
    content: m.content,
    ...(m.name ? { name: m.name } : {}),
    ...(type === "tool" ? { tool_call_id: m.tool_call_id } : {}),
    ...(type === "ai" ? { tool_calls: toolCallsOf(message).map((c) => ({ id: c.id, name: c.name, args: c.args })) } : {}),
  };
}

/** JSON of a message list; `withId` false leaves ids out (ids are not part of a provider prompt). */
export function snapshotJson(messages: readonly BaseMessage[], withId = true): string {
  return JSON.stringify(messages.map((m) => messageSnapshot(m, withId)));
}

/**
 * The model input as a provider would receive it: role, content, name, tool calls, tool_call_id,
 * in order. Ids are kept for every message except ToolMessages, whose ids LangGraph draws at random
 * (a provider never sees message ids; the context message's id is derived from its text).
 */
export function renderPrompt(messages: readonly BaseMessage[]): string {
  return JSON.stringify(messages.map((m) => messageSnapshot(m, messageType(m) !== "tool")));
}

/**
 * Outermost observer: snapshots the stored messages before the inner middlewares run and checks
 * they are unchanged when the call returns. Any difference is pushed to `violations`.
 */
export function mutationGuard(violations: string[]) {
  return createMiddleware({
    name: "test/mutation-guard",
    wrapModelCall: async (request, handler) => {
      const stored = (request.state?.messages ?? []) as BaseMessage[];
      const before = snapshotJson(stored);
      const result = await handler(request);
      const after = snapshotJson(stored);
      if (before !== after) violations.push(`stored messages mutated during a model call: ${before.length} -> ${after.length} chars`);
      return result;
    },
  });
}

/** Innermost observer: records each model call's final request into `calls`. */
export function requestRecorder(calls: SpiedCall[]) {
  return createMiddleware({
    name: "test/request-recorder",
    wrapModelCall: (request, handler) => {
      calls.push({
        stored: [...((request.state?.messages ?? []) as BaseMessage[])],
        messages: [...request.messages],
        systemMessage: request.systemMessage,
        tools: [...(request.tools ?? [])],
      });
      return handler(request);
    },
  });
}
