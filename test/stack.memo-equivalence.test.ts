/**
 * Memoized = from scratch, over the whole stack (issue 16, Correctness). The middlewares keep
 * per-thread state between model calls (core's shared view memo, fact-recall's fact index,
 * summarize's plan, tokenCap's token counts, ...); any of it can go stale. Random threads (see
 * `test/support/stack-threads.ts`: parallel calls answered in any order, orphans, stored system
 * messages, Korean and English, fact-bearing sentences) run through a real `createAgent` with a
 * MemorySaver (so every invoke reads fresh message objects, as a checkpointer deserializes them),
 * then a random sequence of operations, each ending in a turn of the agent:
 * - `turn`: a new user message (and the tool rounds and answer the model script asks for);
 * - `remove`: `RemoveMessage`s of random stored messages, sent with the next user message;
 * - `cut`: a persistTrim-like rewrite (`REMOVE_ALL_MESSAGES`, then the stored suffix);
 * - `travel`: the turn resumes from an older checkpoint (`configurable.checkpoint_id`);
 * - each op runs in process A or B: two sets of middleware instances from two separately loaded
 *   copies of the threadwise modules (`vi.resetModules`, so each has its own shared view memo and
 *   module state), sharing one checkpointer and one thread, as two processes would.
 * The preset also runs persistTrim (`persistTrimKeepGroups`), which deletes in `afterAgent`.
 *
 * For every model call, the same call is computed from scratch: fresh middleware instances, a
 * thread id no cache has seen, deserialized copies of the stored messages, the same private state
 * (summary slot, fact slot). Compared: the request the model received (each message's type, id,
 * content, tool calls; the system message's content; the tool names), core's `viewReport`, the
 * info lines logged (the multiturn line), and the private state after the call (so the summary's
 * input and the facts ranking). They must be identical. A self-check plants two stale caches and
 * shows each is caught.
 *
 * Replay: STACK_MEMO_SEED (seed), STACK_MEMO_RUNS (cases), STACK_MEMO_PATH (one reported case),
 * STACK_MEMO_SHRINK=1 (shrink a failure to a small case; slow).
 */
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { MemorySaver, REMOVE_ALL_MESSAGES, StateSchema } from "@langchain/langgraph";
import { JsonPlusSerializer } from "@langchain/langgraph-checkpoint";
import {
  mergeSummarySlot,
  messageText,
  type PromptContextMode,
  readSummarySlot,
  SUMMARY_SLOT_KEY,
  sharedViewMemo,
  summarySlotState,
  type ThreadwiseLogger,
  toolCallsOf,
  viewReport,
} from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { FACTS_STATE_KEY, factSlotState, mergeFactSlot, readFactSlot } from "@threadwise/fact-recall";
import { memoryMiddleware, resolveMemoryConfig } from "@threadwise/memory";
import { summarize } from "@threadwise/summarize";
import { tokenCap } from "@threadwise/token-cap";
import { windowTrim } from "@threadwise/window-trim";
import fc from "fast-check";
import { type AgentMiddleware, createAgent, createMiddleware, tool } from "langchain";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod/v4";
import { runModelCall } from "./support/model-call.js";
import { snapshotJson } from "./support/stack-spy.js";
import {
  lookupResult,
  modelScript,
  type SeedStep,
  seedMessages,
  seedStepArb,
  type TurnSpec,
  textArb,
  turnArb,
  userMessage,
} from "./support/stack-threads.js";

const SEED = Number(process.env.STACK_MEMO_SEED ?? 20261216);
const RUNS = Number(process.env.STACK_MEMO_RUNS ?? 40);
const PATH = process.env.STACK_MEMO_PATH;
/** Shrink a failure to a small case (minutes) instead of reporting the first one found. */
const SHRINK = process.env.STACK_MEMO_SHRINK === "1";
const EDITS = process.env.STACK_MEMO_EDITS === "1";
const SYSTEM_PROMPT = "You are a helpful travel assistant. 친절한 여행 도우미입니다.";

/** The factories of one "process": one loaded copy of the threadwise modules. */
interface Lib {
  windowTrim: typeof windowTrim;
  tokenCap: typeof tokenCap;
  summarize: typeof summarize;
  memoryMiddleware: typeof memoryMiddleware;
  resolveMemoryConfig: typeof resolveMemoryConfig;
  sharedViewMemo: typeof sharedViewMemo;
}
const LIB_A: Lib = { windowTrim, tokenCap, summarize, memoryMiddleware, resolveMemoryConfig, sharedViewMemo };
let LIB_B: Lib;

/** A second copy of every threadwise module (its own shared view memo and module state): process B. */
async function loadSecondProcess(): Promise<Lib> {
  vi.resetModules();
  const [core, window, cap, sum, memory] = await Promise.all([
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
    sharedViewMemo: core.sharedViewMemo,
  };
}

// ---------------------------------------------------------------------------------------------
// Stacks

type StackKind = "window+summarize" | "window+cap" | "preset";

interface StackConfig {
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

const configArb: fc.Arbitrary<StackConfig> = fc.record({
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

function buildStack(lib: Lib, c: StackConfig, logger: ThreadwiseLogger): AgentMiddleware[] {
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

type Process = "A" | "B";
type Op =
  | { kind: "turn"; by: Process; turn: TurnSpec }
  /** A turn on another thread served by the same instances, its messages under the main thread's ids with other text. */
  | { kind: "elsewhere"; by: Process; turn: TurnSpec }
  | { kind: "edit"; by: Process; turn: TurnSpec; pick: number; text: string }
  | { kind: "remove"; by: Process; turn: TurnSpec; picks: number[] }
  | { kind: "cut"; by: Process; turn: TurnSpec; keepFrom: number }
  | { kind: "travel"; by: Process; turn: TurnSpec; back: number };

const processArb = fc.constantFrom<Process>("A", "B");
const opArb: fc.Arbitrary<Op> = fc.oneof(
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
  ...(EDITS
    ? [
        {
          weight: 2,
          arbitrary: fc.record({ kind: fc.constant("edit" as const), by: processArb, turn: turnArb, pick: fc.nat(), text: textArb }),
        },
      ]
    : []),
);

interface MemoCase {
  seed: SeedStep[];
  first: TurnSpec;
  ops: Op[];
}

const caseArb: fc.Arbitrary<MemoCase> = fc.record({
  // Mostly short threads, sometimes long ones (the memo samples O(log n) positions to validate).
  seed: fc.oneof(
    { weight: 5, arbitrary: fc.array(seedStepArb, { maxLength: 24 }) },
    { weight: 1, arbitrary: fc.array(seedStepArb, { minLength: 40, maxLength: 90 }) },
  ),
  first: turnArb,
  ops: fc.array(opArb, { minLength: 3, maxLength: 8 }),
});

const lookup = tool(async ({ q }: { q: string }) => lookupResult(q), {
  name: "lookup",
  description: "Looks up seats and bookings.",
  schema: z.object({ q: z.string() }),
});

// ---------------------------------------------------------------------------------------------
// Recording (memoized side) and the from-scratch computation

/** One model call of the memoized run. */
interface Call {
  where: string;
  /** The stored thread and private slots as the model node read them; the agent's system message and tools. */
  stored: BaseMessage[];
  summary: unknown;
  facts: unknown;
  systemMessage: SystemMessage;
  tools: unknown[];
  /** What the model got, what core reported, what was logged, and the slots after the call. */
  outcome: Outcome;
  response: AIMessage | undefined;
}

/** What one model call produced; compared field by field. */
interface Outcome {
  messages: string;
  system: string;
  tools: string;
  report: string;
  logs: string[];
  after: string;
}

/** The private slots after a call; `updatedAt` (wall-clock time of the write) left out. */
const slotsJson = (state: unknown) =>
  JSON.stringify({ summary: readSummarySlot(state), facts: readFactSlot(state) }, (key, value) =>
    key === "updatedAt" ? undefined : value,
  );

/** Where two texts first differ, with some context on each side. */
function difference(got: string, want: string): string {
  let at = 0;
  while (at < got.length && got[at] === want[at]) at += 1;
  const from = Math.max(0, at - 160);
  return `at character ${at}\n  memoized:     …${got.slice(from, at + 240)}\n  from scratch: …${want.slice(from, at + 240)}`;
}

/** Outermost: reads the stored state (it declares both private slots) and the logs of the call; its afterModel reads the slots after. */
function outerProbe(calls: Call[], logs: string[], where: () => string) {
  return createMiddleware({
    name: "test/memo-outer-probe",
    stateSchema: new StateSchema({ ...summarySlotState.fields, ...factSlotState.fields }),
    wrapModelCall: async (request, handler) => {
      const state = request.state as Record<string, unknown>;
      const call: Call = {
        where: where(),
        stored: [...(state.messages as BaseMessage[])],
        summary: structuredClone(state[SUMMARY_SLOT_KEY]),
        facts: structuredClone(state[FACTS_STATE_KEY]),
        systemMessage: request.systemMessage,
        tools: [...request.tools],
        outcome: { messages: "", system: "", tools: "", report: "", logs: [], after: "" },
        response: undefined,
      };
      calls.push(call);
      logs.length = 0;
      const response = await handler(request);
      call.outcome.logs = [...logs];
      return response;
    },
    afterModel: (state) => {
      const call = calls.at(-1);
      if (call) call.outcome.after = slotsJson(state);
      return undefined;
    },
  });
}

function requestOutcome(request: {
  messages: BaseMessage[];
  systemMessage: SystemMessage;
  tools: unknown[];
}): Omit<Outcome, "logs" | "after"> {
  return {
    messages: snapshotJson(request.messages),
    system: JSON.stringify(request.systemMessage.content),
    tools: JSON.stringify(request.tools.map((t) => (t as { name?: string }).name)),
    report: JSON.stringify(viewReport(request)),
  };
}

/** Innermost: what the model receives. */
function innerProbe(calls: Call[]) {
  return createMiddleware({
    name: "test/memo-inner-probe",
    wrapModelCall: async (request, handler) => {
      const call = calls.at(-1) as Call;
      Object.assign(call.outcome, requestOutcome(request));
      const response = await handler(request);
      if (AIMessage.isInstance(response)) call.response = response;
      return response;
    },
  });
}

const serde = new JsonPlusSerializer();

/** Fresh message objects, through the checkpointer's serializer. */
async function deserialized<T>(value: T): Promise<T> {
  const [type, bytes] = await serde.dumpsTyped(value);
  return (await serde.loadsTyped(type, bytes)) as T;
}

let refThreads = 0;

/** The call computed from scratch: fresh instances, an unseen thread id, deserialized messages, the same slots. */
async function fromScratch(call: Call, config: StackConfig): Promise<Outcome> {
  const logs: string[] = [];
  const stack = buildStack(LIB_A, config, capture(logs));
  refThreads += 1;
  const threadId = `memo-ref-${refThreads}`;
  const channels: Record<string, unknown> = {};
  if (call.summary !== undefined) channels[SUMMARY_SLOT_KEY] = structuredClone(call.summary);
  if (call.facts !== undefined) channels[FACTS_STATE_KEY] = structuredClone(call.facts);
  let outcome: Omit<Outcome, "logs" | "after"> | undefined;
  const { commands } = await runModelCall(
    stack,
    {
      messages: await deserialized(call.stored),
      channels,
      systemMessage: await deserialized(call.systemMessage),
      tools: call.tools,
      configurable: { thread_id: threadId },
    },
    async (request) => {
      outcome = requestOutcome(request);
      return call.response ?? new AIMessage({ id: "missing", content: "" });
    },
  );
  LIB_A.sharedViewMemo().forget(threadId);
  let summary = readSummarySlot(channels);
  let facts = readFactSlot(channels);
  for (const command of commands) {
    const update = (command.update ?? {}) as Record<string, unknown>;
    if (update[SUMMARY_SLOT_KEY] !== undefined) summary = mergeSummarySlot(summary, update[SUMMARY_SLOT_KEY] as never);
    if (update[FACTS_STATE_KEY] !== undefined) facts = mergeFactSlot(facts, update[FACTS_STATE_KEY] as never);
  }
  if (!outcome) throw new Error(`${call.where}: the from-scratch stack did not call the model`);
  return { ...outcome, logs, after: slotsJson({ [SUMMARY_SLOT_KEY]: summary, [FACTS_STATE_KEY]: facts }) };
}

function capture(logs: string[]): ThreadwiseLogger {
  return { info: (message) => logs.push(message), warn: () => undefined };
}

// ---------------------------------------------------------------------------------------------
// One case

interface CaseRun {
  calls: Call[];
  mismatches: string[];
  ops: Record<Op["kind"], number>;
}

/** What the compared calls exercised: a property that never cut a view or showed a fact proves little. */
interface Coverage {
  calls: number;
  byStack: Record<string, number>;
  ops: Record<Op["kind"], number>;
  /** Calls made by process B, and calls in the turn right after a remove, cut or time travel. */
  processB: number;
  afterRemove: number;
  afterCut: number;
  afterTravel: number;
  /** Calls on the other thread (same instances, same message ids, other text). */
  otherThread: number;
  /** Calls whose view left messages out, that carried a summary, a facts block, a multiturn line. */
  cutViews: number;
  withSummary: number;
  withFacts: number;
  multiturnLines: number;
}

function emptyCoverage(): Coverage {
  return {
    calls: 0,
    byStack: {},
    ops: { turn: 0, elsewhere: 0, edit: 0, remove: 0, cut: 0, travel: 0 },
    processB: 0,
    afterRemove: 0,
    afterCut: 0,
    afterTravel: 0,
    otherThread: 0,
    cutViews: 0,
    withSummary: 0,
    withFacts: 0,
    multiturnLines: 0,
  };
}

function addCoverage(total: Coverage, run: CaseRun, config: StackConfig): void {
  total.calls += run.calls.length;
  total.byStack[config.kind] = (total.byStack[config.kind] ?? 0) + run.calls.length;
  for (const k of Object.keys(run.ops) as Op["kind"][]) total.ops[k] += run.ops[k];
  for (const call of run.calls) {
    const sent = `${call.outcome.system}${call.outcome.messages}`;
    if (call.where.endsWith("(B)")) total.processB += 1;
    if (call.where.includes(" remove ")) total.afterRemove += 1;
    if (call.where.includes(" cut ")) total.afterCut += 1;
    if (call.where.includes(" travel ")) total.afterTravel += 1;
    if (call.where.includes(" elsewhere ")) total.otherThread += 1;
    if ((JSON.parse(call.outcome.report) as { droppedGroups: number }).droppedGroups > 0) total.cutViews += 1;
    if (sent.includes("[Previous conversation summary]")) total.withSummary += 1;
    if (sent.includes("[Known facts about the user]")) total.withFacts += 1;
    total.multiturnLines += call.outcome.logs.filter((line) => line.startsWith("multiturn:")).length;
  }
}

let caseThreads = 0;

/** A seed step with its texts reversed: same ids and lengths, other content. */
function mirrored(step: SeedStep): SeedStep {
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
function edited(message: BaseMessage, text: string): BaseMessage {
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

/**
 * Runs a case on processes A and B sharing one MemorySaver and thread, then computes every model
 * call from scratch. `plantOuter`/`plantInner` add middlewares around/inside the memoized stack only
 * (the self-check's stale caches).
 */
async function runCase(
  c: MemoCase,
  config: StackConfig,
  plantOuter: () => AgentMiddleware[] = () => [],
  plantInner: () => AgentMiddleware[] = () => [],
): Promise<CaseRun> {
  caseThreads += 1;
  const threadId = `memo-${caseThreads}`;
  const checkpointer = new MemorySaver();
  const calls: Call[] = [];
  const logs: string[] = [];
  let script: Array<() => AIMessage> = [];
  let where = "";
  let turnNo = 0;
  const model = scriptedModel(() => script.shift()?.() ?? new AIMessage({ id: `extra-${turnNo}-${calls.length}`, content: "extra" }), {
    strict: false,
  });
  const agentOf = (lib: Lib) =>
    createAgent({
      model,
      tools: [lookup],
      systemPrompt: SYSTEM_PROMPT,
      checkpointer,
      middleware: [
        outerProbe(calls, logs, () => where),
        ...plantOuter(),
        ...buildStack(lib, config, capture(logs)),
        ...plantInner(),
        innerProbe(calls),
      ] as AgentMiddleware[],
    });
  const agents = { A: agentOf(LIB_A), B: agentOf(LIB_B) };
  const ops: CaseRun["ops"] = { turn: 0, elsewhere: 0, edit: 0, remove: 0, cut: 0, travel: 0 };
  const heads: string[] = [];
  const run = { configurable: { thread_id: threadId } };
  const stored = async () => ((await agents.A.graph.getState(run)).values as { messages?: BaseMessage[] }).messages ?? [];
  const invoke = async (by: Process, turn: TurnSpec, before: BaseMessage[], checkpointId?: string) => {
    script = modelScript([turn], turnNo);
    const user = userMessage(turn, turnNo);
    turnNo += 1;
    await agents[by].invoke(
      { messages: [...before, user] },
      { configurable: { thread_id: threadId, ...(checkpointId ? { checkpoint_id: checkpointId } : {}) } },
    );
    const head = (await agents.A.graph.getState(run)).config.configurable?.checkpoint_id;
    if (typeof head === "string") heads.push(head);
  };
  // The other thread reuses the main thread's ids (s1.., u0.., a0-..) with other text of the same
  // length: per-thread caches must not be keyed by message id alone (user-chosen ids repeat).
  let otherTurns = 0;
  const elsewhere = async (by: Process, turn: TurnSpec) => {
    script = modelScript([turn], otherTurns);
    const user = userMessage(turn, otherTurns);
    const before = otherTurns === 0 ? seedMessages(c.seed.map(mirrored)) : [];
    otherTurns += 1;
    await agents[by].invoke({ messages: [...before, user] }, { configurable: { thread_id: `${threadId}-other` } });
  };
  where = "first turn (A)";
  await invoke("A", c.first, seedMessages(c.seed));
  for (const [i, op] of c.ops.entries()) {
    where = `op ${i} ${op.kind} (${op.by})`;
    ops[op.kind] += 1;
    if (op.kind === "turn") await invoke(op.by, op.turn, []);
    else if (op.kind === "elsewhere") await elsewhere(op.by, op.turn);
    else if (op.kind === "edit") {
      const messages = await stored();
      const target = messages[op.pick % Math.max(1, messages.length)];
      await invoke(op.by, op.turn, target ? [edited(target, op.text)] : []);
    } else if (op.kind === "remove") {
      const messages = await stored();
      const ids = [...new Set(op.picks.map((p) => messages[p % Math.max(1, messages.length)]?.id).filter((id) => id !== undefined))];
      await invoke(
        op.by,
        op.turn,
        ids.map((id) => new RemoveMessage({ id: id as string })),
      );
    } else if (op.kind === "cut") {
      const messages = await stored();
      const keep = messages.slice(Math.floor(messages.length * op.keepFrom));
      await invoke(op.by, op.turn, [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...keep]);
    } else {
      const target = heads[Math.max(0, heads.length - 1 - op.back)];
      await invoke(op.by, op.turn, [], target);
    }
  }
  const mismatches: string[] = [];
  for (const [k, call] of calls.entries()) {
    const expected = await fromScratch(call, config);
    for (const field of ["messages", "system", "tools", "report", "logs", "after"] as const) {
      const got = JSON.stringify(call.outcome[field]);
      const want = JSON.stringify(expected[field]);
      if (got !== want)
        mismatches.push(`call ${k} (${call.where}, ${call.stored.length} stored): ${field} differs ${difference(got, want)}`);
    }
  }
  return { calls, mismatches, ops };
}

// ---------------------------------------------------------------------------------------------

describe("memoized stack = from-scratch stack, call by call (issue 16)", () => {
  beforeAll(async () => {
    LIB_B = await loadSecondProcess();
    expect(LIB_B.sharedViewMemo()).not.toBe(LIB_A.sharedViewMemo());
  });

  it("every model call of random threads with deletions, cuts, time travel and two processes", async () => {
    const coverage = emptyCoverage();
    console.log(`[stack.memo] seed=${SEED} runs=${RUNS} (replay: STACK_MEMO_SEED=${SEED})`);
    await fc.assert(
      fc.asyncProperty(caseArb, configArb, async (c, config) => {
        const run = await runCase(c, config);
        addCoverage(coverage, run, config);
        if (run.mismatches.length > 0) throw new Error(`${run.mismatches.slice(0, 4).join("\n")}\nconfig: ${JSON.stringify(config)}`);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: !SHRINK, ...(PATH ? { path: PATH } : {}) },
    );
    console.log(`[stack.memo] seed=${SEED} runs=${RUNS} calls compared=${coverage.calls}`, JSON.stringify(coverage));
    // The cases reach what the memos are about.
    expect(coverage.calls).toBeGreaterThan(RUNS * 3);
    for (const key of [
      "processB",
      "afterRemove",
      "afterCut",
      "afterTravel",
      "otherThread",
      "cutViews",
      "withSummary",
      "withFacts",
      "multiturnLines",
    ] as const)
      expect(coverage[key], key).toBeGreaterThan(0);
  }, 600_000);

  // Found by this property (STACK_MEMO_SEED=4, shrunk): recall's message index in process A, after
  // process B removed a tool-call message and the first message and persistTrim trimmed the head,
  // took the head trim for the whole deletion and dropped u2, still stored, from its index
  // (packages/recall/src/message-index.ts, MessageIndex sync's head-trim path).
  it("regression: recall's index after a RemoveMessage and a persistTrim in another process", async () => {
    const said = (text: string) => ({ text, blocks: false, image: false });
    const seoul = said("I live in Seoul.");
    const round = (calls: string[]) => ({ calls, queries: ["short", "short", "short"] });
    const turn = (calls: string[][]): TurnSpec => ({ user: seoul, rounds: calls.map(round), answer: "I live in Seoul." });
    const c: MemoCase = {
      seed: [
        { kind: "user", content: seoul },
        { kind: "dangling", call: "call_1" },
      ],
      first: turn([]),
      ops: [
        { kind: "travel", by: "A", turn: turn([["call_2", "call_3", "call_1"]]), back: 1 },
        { kind: "turn", by: "A", turn: turn([["call_2", "call_1"]]) },
        { kind: "remove", by: "B", turn: turn([["call_1"]]), picks: [879261461, 0] },
        { kind: "turn", by: "A", turn: turn([["call_1"]]) },
      ],
    };
    const config: StackConfig = {
      kind: "preset",
      mode: "legacy_system",
      defaults: false,
      maxMessages: 8,
      windowEviction: "sliding",
      maxTokens: 150,
      capEviction: "sliding",
      thresholdOver: 7,
      maxItems: 1,
      keepGroups: 3,
      recall: true,
    };
    const run = await runCase(c, config);
    expect(run.calls.length).toBe(9);
    expect(run.calls[8]?.outcome.system).toContain("#1 user: I live in Seoul.");
    expect(run.mismatches).toEqual([]);
  });

  // KNOWN FAILURE, reported to the lead (issue 16): core's view memo validates a stored thread by
  // message ids (packages/core/src/view-memo.ts, `ViewMemo.index` / `ThreadIndex.costPrefix`), so
  // a message sent again under its own id with other text (an edit or a redaction; LangGraph's
  // messages reducer replaces it in place) keeps the token cost of its old text, and tokenCap sends
  // a view over `maxTokens`. Passes while the bug is there; when it fails, make it a plain `it`.
  it.fails("KNOWN FAILURE: an older message edited in place: tokenCap cuts as from scratch", async () => {
    const sentIds = async (stack: AgentMiddleware[], messages: BaseMessage[], threadId: string) => {
      let ids: Array<string | undefined> = [];
      await runModelCall(
        stack,
        { messages, channels: {}, systemMessage: new SystemMessage(""), tools: [], configurable: { thread_id: threadId } },
        async (request) => {
          ids = request.messages.map((m) => m.id);
          return new AIMessage("ok");
        },
      );
      return ids;
    };
    const before = [
      new HumanMessage({ id: "u0", content: "hi" }),
      new AIMessage({ id: "a0", content: "hello" }),
      new HumanMessage({ id: "u1", content: "next" }),
    ];
    const long = "I moved to Busan last month and seat 12A is free. ".repeat(20);
    const after = [
      new HumanMessage({ id: "u0", content: long }),
      ...before.slice(1),
      new AIMessage({ id: "a1", content: "ok" }),
      new HumanMessage({ id: "u2", content: "more" }),
    ];
    caseThreads += 1;
    const threadId = `memo-edit-${caseThreads}`;
    const cap = tokenCap({ maxTokens: 100, logger: false });
    expect(await sentIds([cap], before, threadId)).toEqual(["u0", "a0", "u1"]);
    const fresh = await sentIds([tokenCap({ maxTokens: 100, logger: false })], after, `${threadId}-fresh`);
    expect(fresh).toEqual(["u1", "a1", "u2"]);
    // Memoized: u0 still costs what "hi" cost, so all five messages (about 345 tokens) are sent.
    expect(await sentIds([cap], after, threadId)).toEqual(fresh);
  });

  describe("self-check: a planted stale cache is caught", () => {
    const said = (text: string) => ({ text, blocks: false, image: false });
    const turn = (text: string, answer: string): TurnSpec => ({ user: said(text), rounds: [], answer });
    const c: MemoCase = {
      seed: [
        { kind: "user", content: said("My name is Mina.") },
        { kind: "assistant", content: said("Nice to meet you, Mina.") },
        { kind: "user", content: said("I live in Seoul.") },
        { kind: "assistant", content: said("Noted.") },
      ],
      first: {
        user: said("Can you check seat 12A for tomorrow?"),
        rounds: [{ calls: ["call_1", "call_2"], queries: ["short", "short", "short"] }],
        answer: "Free.",
      },
      ops: [
        { kind: "turn", by: "A", turn: turn("저는 간호사예요.", "알겠어요.") },
        { kind: "remove", by: "A", turn: turn("제 이름은 민지예요.", "반가워요, 민지 님."), picks: [2, 3] },
        { kind: "turn", by: "B", turn: turn("I have a dog named Coco.", "Cute.") },
        { kind: "travel", by: "A", turn: turn("I moved to Busan last month.", "Noted."), back: 2 },
        { kind: "turn", by: "A", turn: turn("Where do I live?", "Busan.") },
      ],
    };
    const config: StackConfig = {
      kind: "preset",
      mode: "legacy_system",
      defaults: false,
      maxMessages: 4,
      windowEviction: "sliding",
      maxTokens: 2000,
      capEviction: "sliding",
      thresholdOver: 2,
      maxItems: 3,
      keepGroups: undefined,
      recall: false,
    };
    const threadOf = (request: { runtime?: { configurable?: { thread_id?: unknown } } }) =>
      String(request.runtime?.configurable?.thread_id);

    it("the clean stack: no mismatch", async () => {
      const run = await runCase(c, config);
      expect(run.mismatches).toEqual([]);
      expect(run.calls.length).toBe(7);
    });

    it("a thread cache that assumes the thread only grows: caught after the RemoveMessage", async () => {
      // Per process and thread, the messages seen so far, extended with what is past their count.
      const appendOnly = () => {
        const seen = new Map<string, BaseMessage[]>();
        return createMiddleware({
          name: "test/append-only-thread",
          wrapModelCall: (request, handler) => {
            const stored = request.state.messages as BaseMessage[];
            const known = seen.get(threadOf(request)) ?? [];
            const thread = [...known, ...stored.slice(known.length)];
            seen.set(threadOf(request), thread);
            return handler({ ...request, messages: thread, state: { ...request.state, messages: thread } });
          },
        });
      };
      const run = await runCase(c, config, () => [appendOnly()]);
      expect(run.mismatches.length).toBeGreaterThan(0);
      expect(run.mismatches[0]).toMatch(/^call 3 \(op 1 remove \(A\)/);
    });

    it("core's view memo trusting its index without validating it (both processes): the property fails", async () => {
      // The memo's per-thread index class (private), reached through an index of each process's shared memo.
      const restore = [LIB_A, LIB_B].map((lib) => {
        const index = Object.getPrototypeOf(lib.sharedViewMemo().index(undefined, [])) as { matches: unknown };
        const matches = index.matches;
        expect(typeof matches).toBe("function");
        index.matches = () => true;
        return () => {
          index.matches = matches;
        };
      });
      try {
        const out = await fc.check(
          fc.asyncProperty(caseArb, configArb, async (c, config) => (await runCase(c, config)).mismatches.length === 0),
          { seed: SEED, numRuns: 10, endOnFailure: true },
        );
        expect(out.failed).toBe(true);
      } finally {
        for (const undo of restore) undo();
      }
    });

    it("a system message cached per thread until a stored system message changes: caught when a fact changes", async () => {
      const frozenSystem = () => {
        const cache = new Map<string, SystemMessage>();
        return createMiddleware({
          name: "test/frozen-system",
          wrapModelCall: (request, handler) => {
            const key = `${threadOf(request)}|${(request.state.messages as BaseMessage[]).filter((m) => m.getType() === "system").length}`;
            const cached = cache.get(key) ?? request.systemMessage;
            cache.set(key, cached);
            return handler({ ...request, systemMessage: cached });
          },
        });
      };
      // Innermost (inside the stack): it sees the assembled request.
      const run = await runCase(
        c,
        config,
        () => [],
        () => [frozenSystem()],
      );
      expect(run.mismatches.some((m) => m.includes("system differs"))).toBe(true);
      expect(run.mismatches.some((m) => m.includes("Known facts about the user"))).toBe(true);
    });
  });
});
