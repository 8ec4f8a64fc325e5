/**
 * The middleware hooks of one model call, run as `createAgent`'s graph runs them but without the
 * graph and the checkpointer, with each hook's own CPU time (inner handlers excluded): what
 * bench/overhead.ts and bench/scale.ts time as "the hooks' own time".
 */
import { AIMessage, type BaseMessage, SystemMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { mergeSummarySlot } from "@threadwise/core";
import { mergeFactSlot } from "@threadwise/fact-recall";
import type { AgentMiddleware } from "langchain";

export type Hook = (state: Record<string, unknown>, runtime: unknown) => unknown;
export type Handler = (request: ModelRequest) => Promise<unknown>;
export interface ModelRequest {
  model: unknown;
  messages: BaseMessage[];
  systemMessage: SystemMessage;
  systemPrompt: string;
  tools: unknown[];
  state: Record<string, unknown>;
  runtime: unknown;
  [key: string]: unknown;
}

/** Reducers of the private state channels the stacks write; other keys are replaced. */
export const REDUCERS: Record<string, (current: never, update: never) => unknown> = {
  _threadwise_facts: mergeFactSlot as never,
  _threadwise_summary: mergeSummarySlot as never,
};

export function hookOf(value: unknown): Hook | undefined {
  if (typeof value === "function") return value as Hook;
  if (value && typeof value === "object" && typeof (value as { hook?: unknown }).hook === "function") return (value as { hook: Hook }).hook;
  return undefined;
}

export function applyUpdate(channels: Record<string, unknown>, update: unknown): void {
  if (!update || typeof update !== "object") return;
  for (const [key, value] of Object.entries(update as Record<string, unknown>)) {
    if (key === "messages" || key === "jumpTo") continue; // the bench's thread is fixed; no stack here writes messages in steady state
    const reducer = REDUCERS[key];
    channels[key] = reducer ? reducer(channels[key] as never, value as never) : value;
  }
}

/** One configuration under test: its middlewares and the private channels they persist. */
export interface Stack {
  name: string;
  middleware: AgentMiddleware[];
  channels: Record<string, unknown>;
  lastSent: number;
  /** Per middleware and hook, ms spent in the hook itself (inner handlers excluded), summed over calls. */
  selfMs?: Map<string, number>;
}

/**
 * CPU time of this process, in ms (user + system). The machine this bench runs on is often shared,
 * so time spent descheduled would otherwise be billed to whatever hook was running.
 */
export function cpuNow(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

export function addSelf(stack: Stack, key: string, ms: number): void {
  if (stack.selfMs) stack.selfMs.set(key, (stack.selfMs.get(key) ?? 0) + ms);
}

export const answerModel = { model: "gpt-4o", invoke: async () => new AIMessage("ok") };

/**
 * Runs the hooks of one model call the way `createAgent` does and returns the number of messages
 * the model received. The model answers at once.
 */
export async function modelCall(stack: Stack, messages: BaseMessage[], threadId: string, systemPrompt: string): Promise<void> {
  const runtime = Object.freeze({ context: {}, configurable: { thread_id: threadId } });
  // Every channel a middleware declares is in the graph's state, set or not (a hook-less
  // declaration such as core's summarySlotMiddleware included).
  const declared = Object.fromEntries(declaredKeys(stack.middleware).map((key) => [key, undefined]));
  const state = (): Record<string, unknown> => ({ ...declared, ...stack.channels, messages });
  for (const m of stack.middleware) {
    const hook = hookOf((m as { beforeModel?: unknown }).beforeModel);
    if (!hook) continue;
    const t0 = cpuNow();
    applyUpdate(stack.channels, await hook(state(), runtime));
    addSelf(stack, `${m.name} beforeModel`, cpuNow() - t0);
  }
  const baseSystem = new SystemMessage({ content: [{ type: "text", text: systemPrompt }] });
  let current = baseSystem;
  const commands: Command[] = [];
  // What AgentNode tracks: the newest AIMessage, handed to an outer layer whose inner layer returned a Command.
  let lastAi: AIMessage | undefined;
  const base: Handler = async (request) => {
    stack.lastSent = request.messages.length;
    lastAi = new AIMessage("ok");
    return lastAi;
  };
  let handler = base;
  for (let i = stack.middleware.length - 1; i >= 0; i -= 1) {
    const m = stack.middleware[i] as { name: string; wrapModelCall?: (r: ModelRequest, h: Handler) => Promise<unknown> };
    if (!m.wrapModelCall) continue;
    const inner = handler;
    const wrap = m.wrapModelCall;
    handler = async (request) => {
      const baseline = current;
      let innerMs = 0;
      // What AgentNode does between layers: a changed systemMessage becomes the current one.
      const normalized: Handler = async (req) => {
        current = baseline;
        let next = req;
        if (req.systemMessage !== current) {
          current = new SystemMessage({ ...req.systemMessage });
          next = { ...req, systemPrompt: current.text, systemMessage: current };
        }
        const t0 = cpuNow();
        const out = await inner(next);
        innerMs += cpuNow() - t0;
        // AgentNode normalizes an inner Command to the last AIMessage, so a middleware always sees
        // an AIMessage from its handler (the Command is already collected and applied after the call).
        return out instanceof Command && lastAi ? lastAi : out;
      };
      const t0 = cpuNow();
      const response = await wrap({ ...request, state: state(), runtime }, normalized);
      if (response instanceof Command) commands.push(response);
      else if (AIMessage.isInstance(response)) lastAi = response;
      addSelf(stack, `${m.name} wrapModelCall`, cpuNow() - t0 - innerMs);
      return response;
    };
  }
  await handler({
    model: answerModel,
    messages,
    systemMessage: baseSystem,
    systemPrompt: baseSystem.text,
    tools: [],
    state: state(),
    runtime,
  });
  for (const command of commands) applyUpdate(stack.channels, command.update);
  for (let i = stack.middleware.length - 1; i >= 0; i -= 1) {
    const m = stack.middleware[i] as { name: string; afterModel?: unknown };
    const hook = hookOf(m.afterModel);
    if (!hook) continue;
    const t0 = cpuNow();
    applyUpdate(stack.channels, await hook(state(), runtime));
    addSelf(stack, `${m.name} afterModel`, cpuNow() - t0);
  }
}

/** The state keys the middlewares declare (their `stateSchema`'s shape), as the graph has a channel for each. */
export function declaredKeys(middleware: readonly AgentMiddleware[]): string[] {
  const keys = new Set<string>();
  for (const m of middleware) {
    // A zod object has `shape`; LangGraph's StateSchema has `fields`.
    const schema = (m as { stateSchema?: { shape?: Record<string, unknown>; fields?: Record<string, unknown> } }).stateSchema;
    for (const key of Object.keys(schema?.shape ?? schema?.fields ?? {})) keys.add(key);
  }
  return [...keys];
}

/** Sum of the hooks' own time so far in this run (0 before the timed calls start). */
export function ownTotal(stack: Stack): number {
  let total = 0;
  for (const ms of stack.selfMs?.values() ?? []) total += ms;
  return total;
}
