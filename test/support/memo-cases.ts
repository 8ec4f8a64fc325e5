/**
 * What test/stack.memo-equivalence.test.ts runs (issue 16): the stacks (the README's
 * `[windowTrim(), summarize()]` and `[windowTrim(), tokenCap()]`, the memoryMiddleware preset),
 * built from one loaded copy of the threadwise modules per "process", and random cases: a random
 * stored thread (`stack-threads.ts`), then operations on it (turns, RemoveMessage, persistTrim-like
 * cuts, time travel to a run's end or into a run, a turn on another thread, in-place edits, a
 * thread deleted and restarted under the same ids), each by process A or B.
 */
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { messageText, type PromptContextMode, type ThreadwiseLogger, toolCallsOf } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryMiddleware, resolveMemoryConfig } from "@threadwise/memory";
import { summarize } from "@threadwise/summarize";
import { tokenCap } from "@threadwise/token-cap";
import { windowTrim } from "@threadwise/window-trim";
import fc from "fast-check";
import { type AgentMiddleware, tool } from "langchain";
import { vi } from "vitest";
import { z } from "zod/v4";
import { lookupResult, type SeedStep, seedStepArb, type TurnSpec, textArb, turnArb } from "./stack-threads.js";

export const SYSTEM_PROMPT = "You are a helpful travel assistant. 친절한 여행 도우미입니다.";

/** The factories of one "process": one loaded copy of the threadwise modules. */
export interface Lib {
  windowTrim: typeof windowTrim;
  tokenCap: typeof tokenCap;
  summarize: typeof summarize;
  memoryMiddleware: typeof memoryMiddleware;
  resolveMemoryConfig: typeof resolveMemoryConfig;
}
export const LIB_A: Lib = { windowTrim, tokenCap, summarize, memoryMiddleware, resolveMemoryConfig };

/** A second copy of every threadwise module (its own module state): process B. */
export async function loadSecondProcess(): Promise<Lib> {
  vi.resetModules();
  const [, window, cap, sum, memory] = await Promise.all([
    import("@threadwise/core"),
    import("@threadwise/window-trim"),
    import("@threadwise/token-cap"),
    import("@threadwise/summarize"),
    import("@threadwise/memory"),
  ]);
  return {
    windowTrim: window.windowTrim,
    tokenCap: cap.tokenCap,
    summarize: sum.summarize,
    memoryMiddleware: memory.memoryMiddleware,
    resolveMemoryConfig: memory.resolveMemoryConfig,
  };
}

// ---------------------------------------------------------------------------------------------
// Stacks

export type StackKind = "window+summarize" | "window+cap" | "preset";

export interface StackConfig {
  kind: StackKind;
  mode: PromptContextMode;
  /** The README's stacks as written (`[windowTrim(), summarize()]`, `[windowTrim(), tokenCap({ maxTokens })]`): default options. */
  defaults: boolean;
  maxMessages: number;
  windowEviction: "sliding" | "chunked";
  maxTokens: number;
  capEviction: "sliding" | "chunked";
  /** Extra messages over the window before a summary is due. */
  thresholdOver: number;
  maxItems: number;
  /** Preset only: persistTrim's kept groups (deletes from the store after each run), or none. */
  keepGroups: number | undefined;
  /** Preset only: the recall block. */
  recall: boolean;
}

export const configArb: fc.Arbitrary<StackConfig> = fc.record({
  kind: fc.constantFrom<StackKind>("window+summarize", "window+cap", "preset"),
  mode: fc.constantFrom<PromptContextMode>("legacy_system", "stable_tail", "cache_aware"),
  defaults: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  maxMessages: fc.integer({ min: 2, max: 10 }),
  windowEviction: fc.constantFrom("sliding" as const, "chunked" as const),
  maxTokens: fc.integer({ min: 150, max: 2500 }),
  capEviction: fc.constantFrom("sliding" as const, "chunked" as const),
  thresholdOver: fc.integer({ min: 1, max: 8 }),
  maxItems: fc.integer({ min: 1, max: 3 }),
  keepGroups: fc.option(fc.integer({ min: 3, max: 12 }), { nil: undefined }),
  recall: fc.boolean(),
});

/** The fake summarizer: its answer is a function of its whole input, so a different input shows in the slot. */
function fakeSummarizer() {
  return scriptedModel(
    (messages: BaseMessage[]) => {
      const input = messages.map((m) => messageText(m)).join("\n");
      let hash = 0;
      for (let i = 0; i < input.length; i += 1) hash = (hash * 31 + input.charCodeAt(i)) | 0;
      return `Summary of ${input.split("\n").length} lines (#${(hash >>> 0).toString(16)}): ${input.slice(-40).replace(/\s+/g, " ")}`;
    },
    { strict: false },
  );
}

export function buildStack(lib: Lib, c: StackConfig, logger: ThreadwiseLogger): AgentMiddleware[] {
  const model = fakeSummarizer();
  const mode = c.mode;
  if (c.kind === "preset") {
    const config = lib.resolveMemoryConfig(
      {
        backend: "in_memory",
        windowSize: c.maxMessages,
        maxHistoryTokens: c.maxTokens,
        summarize: true,
        summarizeThreshold: c.maxMessages + c.thresholdOver,
        factsMode: "heuristic",
        factRecallMaxItems: c.maxItems,
        promptContextMode: mode,
        ...(c.keepGroups === undefined ? {} : { persistTrimKeepGroups: c.keepGroups }),
        ...(c.recall ? { recallMaxTokens: 200 } : {}),
      },
      {},
    );
    return lib.memoryMiddleware(config, { models: { summarize: model as never }, logger });
  }
  const window = c.defaults
    ? lib.windowTrim({ logger })
    : lib.windowTrim({ maxMessages: c.maxMessages, eviction: c.windowEviction, logger });
  if (c.kind === "window+cap") {
    return [
      window,
      c.defaults
        ? lib.tokenCap({ maxTokens: c.maxTokens, logger })
        : lib.tokenCap({ maxTokens: c.maxTokens, encoding: "o200k_base", eviction: c.capEviction, logger }),
    ] as AgentMiddleware[];
  }
  return [
    window,
    c.defaults
      ? lib.summarize({ model, promptContextMode: mode, logger })
      : lib.summarize({ model, windowSize: c.maxMessages, threshold: c.maxMessages + c.thresholdOver, promptContextMode: mode, logger }),
  ] as AgentMiddleware[];
}

// ---------------------------------------------------------------------------------------------
// Operations

export type Process = "A" | "B";
export type Op =
  | { kind: "turn"; by: Process; turn: TurnSpec }
  /** A turn on another thread served by the same instances, its messages under the main thread's ids with other text. */
  | { kind: "elsewhere"; by: Process; turn: TurnSpec }
  | { kind: "edit"; by: Process; turn: TurnSpec; pick: number; text: string }
  | { kind: "remove"; by: Process; turn: TurnSpec; picks: number[] }
  | { kind: "cut"; by: Process; turn: TurnSpec; keepFrom: number }
  | { kind: "travel"; by: Process; turn: TurnSpec; back: number }
  /**
   * Resume any checkpoint of the thread's history (`pick` modulo its length), mid-run ones too: one
   * with work pending (the tool node after a tool-call answer, the model after tool results) goes
   * on from there (`invoke(null)`), one at the end of a run takes the turn's user message.
   */
  | { kind: "replay"; by: Process; turn: TurnSpec; pick: number }
  /**
   * The thread is deleted from the checkpointer and a new conversation starts under the same
   * thread id: another stored part whose messages take the old thread's ids position by position.
   */
  | { kind: "restart"; by: Process; turn: TurnSpec; seed: SeedStep[] };

const processArb = fc.constantFrom<Process>("A", "B");
const opArb = (sameIds: boolean): fc.Arbitrary<Op> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant("turn" as const), by: processArb, turn: turnArb }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("elsewhere" as const), by: processArb, turn: turnArb }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant("remove" as const),
        by: processArb,
        turn: turnArb,
        picks: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("cut" as const),
        by: processArb,
        turn: turnArb,
        keepFrom: fc.double({ min: 0.1, max: 0.9, noNaN: true }),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant("travel" as const), by: processArb, turn: turnArb, back: fc.integer({ min: 1, max: 4 }) }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("replay" as const), by: processArb, turn: turnArb, pick: fc.nat() }) },
    ...(sameIds
      ? [
          {
            weight: 2,
            arbitrary: fc.record({ kind: fc.constant("edit" as const), by: processArb, turn: turnArb, pick: fc.nat(), text: textArb }),
          },
          {
            weight: 1,
            arbitrary: fc.record({
              kind: fc.constant("restart" as const),
              by: processArb,
              turn: turnArb,
              seed: fc.array(seedStepArb, { maxLength: 24 }),
            }),
          },
        ]
      : []),
  );

export interface MemoCase {
  seed: SeedStep[];
  first: TurnSpec;
  ops: Op[];
}

/**
 * A case: a stored part, the first turn, then 3 to 8 operations. `sameIds` adds the operations
 * that give a message id to other content (an in-place edit, a thread restarted under the old ids).
 */
export const memoCaseArb = (sameIds = false): fc.Arbitrary<MemoCase> =>
  fc.record({
    // Mostly short threads, sometimes long ones (the memo samples O(log n) positions to validate).
    seed: fc.oneof(
      { weight: 5, arbitrary: fc.array(seedStepArb, { maxLength: 24 }) },
      { weight: 1, arbitrary: fc.array(seedStepArb, { minLength: 40, maxLength: 90 }) },
    ),
    first: turnArb,
    ops: fc.array(opArb(sameIds), { minLength: 3, maxLength: 8 }),
  });

export const lookup = tool(async ({ q }: { q: string }) => lookupResult(q), {
  name: "lookup",
  description: "Looks up seats and bookings.",
  schema: z.object({ q: z.string() }),
});

/** A seed step with its texts reversed: same ids and lengths, other content. */
export function mirrored(step: SeedStep): SeedStep {
  const flip = (text: string) => [...text].reverse().join("");
  if (step.kind === "user" || step.kind === "assistant") return { ...step, content: { ...step.content, text: flip(step.content.text) } };
  if (step.kind === "system") return { ...step, text: flip(step.text) };
  if (step.kind === "tools") return { ...step, result: flip(step.result) };
  return step;
}

/**
 * The same message under the same id with other content, as a client editing a message (or
 * humanInTheLoop's `edit` decision for a tool call's arguments) sends it: the messages reducer
 * replaces it in place.
 */
export function edited(message: BaseMessage, text: string): BaseMessage {
  const type = message.getType();
  if (type === "ai") {
    const calls = toolCallsOf(message);
    return new AIMessage({
      id: message.id as string,
      content: calls.length > 0 ? "" : text,
      ...(calls.length > 0 ? { tool_calls: calls.map((c) => ({ ...c, args: { q: "long" }, type: "tool_call" as const })) } : {}),
    });
  }
  if (type === "tool") {
    const m = message as ToolMessage;
    return new ToolMessage({ id: m.id as string, content: text, tool_call_id: m.tool_call_id, name: m.name });
  }
  if (type === "system") return new SystemMessage({ id: message.id as string, content: text });
  return new HumanMessage({ id: message.id as string, content: text });
}
