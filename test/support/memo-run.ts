/**
 * How test/stack.memo-equivalence.test.ts runs a case (issue 16): processes A and B (two loaded
 * copies of the threadwise modules) share one MemorySaver and thread in a real `createAgent`;
 * probes record each model call (the stored thread and private slots it started from, the request
 * the model received, core's `viewReport`, the lines logged, the slots after), and each call
 * is then computed from scratch (fresh instances, an unseen thread id, deserialized messages, the
 * same slots) and compared field by field.
 */
import { AIMessage, type BaseMessage, RemoveMessage, type SystemMessage } from "@langchain/core/messages";
import { MemorySaver, REMOVE_ALL_MESSAGES, StateSchema } from "@langchain/langgraph";
import { JsonPlusSerializer } from "@langchain/langgraph-checkpoint";
import { mergeSummarySlot, readSummarySlot, SUMMARY_SLOT_KEY, summarySlotState, type ThreadwiseLogger, viewReport } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { FACTS_STATE_KEY, factSlotState, mergeFactSlot, readFactSlot } from "@threadwise/fact-recall";
import { type AgentMiddleware, createAgent, createMiddleware } from "langchain";
import {
  buildStack,
  edited,
  type Lib,
  lookup,
  type MemoCase,
  mirrored,
  type Op,
  type Process,
  type StackConfig,
  SYSTEM_PROMPT,
} from "./memo-cases.js";
import { runModelCall } from "./model-call.js";
import { snapshotJson } from "./stack-spy.js";
import { modelScript, seedMessages, type TurnSpec, userMessage } from "./stack-threads.js";

/** One model call of the memoized run. */
export interface Call {
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
export interface Outcome {
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
  // The call whose slots-after are not read yet: a run resumed from a checkpoint between a model
  // call and its afterModel node runs that node again with no model call of its own.
  let awaiting: Call | undefined;
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
      awaiting = call;
      logs.length = 0;
      const response = await handler(request);
      call.outcome.logs = [...logs];
      return response;
    },
    afterModel: (state) => {
      if (awaiting) awaiting.outcome.after = slotsJson(state);
      awaiting = undefined;
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

/** The call computed from scratch: fresh instances, an unseen thread id, deserialized messages, the same slots. */
async function fromScratch(call: Call, config: StackConfig, lib: Lib): Promise<Outcome> {
  const logs: string[] = [];
  const stack = buildStack(lib, config, capture(logs));
  const threadId = nextThreadId("memo-ref");
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
  return {
    info: (message) => logs.push(message),
    warn: (message, fields) => logs.push(`warn: ${message} ${JSON.stringify(fields ?? {})}`),
  };
}

export interface CaseRun {
  calls: Call[];
  mismatches: string[];
  ops: Record<Op["kind"], number>;
}

/** What the compared calls exercised: a property that never cut a view or showed a fact proves little. */
export interface Coverage {
  calls: number;
  byStack: Record<string, number>;
  ops: Record<Op["kind"], number>;
  /** Calls made by process B, and calls in the turn right after a remove, cut or time travel. */
  processB: number;
  afterRemove: number;
  afterCut: number;
  afterTravel: number;
  /** Calls of a run resumed from a checkpoint inside a run (work pending). */
  midRunReplays: number;
  /** Calls right after the thread was deleted and started again under the same thread and message ids. */
  afterRestart: number;
  /** Calls on the other thread (same instances, same message ids, other text). */
  otherThread: number;
  /** Calls whose view left messages out, that carried a summary, a facts block, a multiturn line. */
  cutViews: number;
  withSummary: number;
  withFacts: number;
  multiturnLines: number;
  /** Warnings logged (compared like the info lines). */
  warnings: number;
}

export function emptyCoverage(): Coverage {
  return {
    calls: 0,
    byStack: {},
    ops: { turn: 0, elsewhere: 0, edit: 0, remove: 0, cut: 0, travel: 0, replay: 0, restart: 0 },
    processB: 0,
    afterRemove: 0,
    afterCut: 0,
    afterTravel: 0,
    otherThread: 0,
    midRunReplays: 0,
    afterRestart: 0,
    cutViews: 0,
    withSummary: 0,
    withFacts: 0,
    multiturnLines: 0,
    warnings: 0,
  };
}

export function addCoverage(total: Coverage, run: CaseRun, config: StackConfig): void {
  total.calls += run.calls.length;
  total.byStack[config.kind] = (total.byStack[config.kind] ?? 0) + run.calls.length;
  for (const k of Object.keys(run.ops) as Op["kind"][]) total.ops[k] += run.ops[k];
  for (const call of run.calls) {
    const sent = `${call.outcome.system}${call.outcome.messages}`;
    if (call.where.endsWith("(B)")) total.processB += 1;
    if (call.where.includes(" remove ")) total.afterRemove += 1;
    if (call.where.includes(" cut ")) total.afterCut += 1;
    if (call.where.includes(" travel ") || call.where.includes(" replay ")) total.afterTravel += 1;
    if (call.where.includes(" replay ") && call.where.includes("mid-run")) total.midRunReplays += 1;
    if (call.where.includes(" elsewhere ")) total.otherThread += 1;
    if (call.where.includes(" restart ")) total.afterRestart += 1;
    if ((JSON.parse(call.outcome.report) as { droppedGroups: number }).droppedGroups > 0) total.cutViews += 1;
    if (sent.includes("[Previous conversation summary]")) total.withSummary += 1;
    if (sent.includes("[Known facts about the user]")) total.withFacts += 1;
    total.multiturnLines += call.outcome.logs.filter((line) => line.startsWith("multiturn:")).length;
    total.warnings += call.outcome.logs.filter((line) => line.startsWith("warn:")).length;
  }
}

/** The same message under another id (a new object; the original is not touched). */
function renamed(message: BaseMessage, id: string): BaseMessage {
  const Message = message.constructor as new (fields: Record<string, unknown>) => BaseMessage;
  return new Message({ ...(message as unknown as { lc_kwargs: Record<string, unknown> }).lc_kwargs, id });
}

let threads = 0;

/** A thread id no cache of this process has seen: `<prefix>-<n>`. */
export function nextThreadId(prefix: string): string {
  threads += 1;
  return `${prefix}-${threads}`;
}

/**
 * Runs a case on processes A and B sharing one MemorySaver and thread, then computes every model
 * call from scratch. `plantOuter`/`plantInner` add middlewares around/inside the memoized stack only
 * (the self-check's stale caches).
 */
export async function runCase(
  c: MemoCase,
  config: StackConfig,
  processes: Record<Process, Lib>,
  plants: { outer?: () => AgentMiddleware[]; inner?: () => AgentMiddleware[] } = {},
): Promise<CaseRun> {
  const threadId = nextThreadId("memo");
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
        ...(plants.outer?.() ?? []),
        ...buildStack(lib, config, capture(logs)),
        ...(plants.inner?.() ?? []),
        innerProbe(calls),
      ] as AgentMiddleware[],
    });
  const agents = { A: agentOf(processes.A), B: agentOf(processes.B) };
  const ops: CaseRun["ops"] = { turn: 0, elsewhere: 0, edit: 0, remove: 0, cut: 0, travel: 0, replay: 0, restart: 0 };
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
    } else if (op.kind === "restart") {
      // The new stored part takes the old thread's ids position by position (as an A2A client
      // numbering its messages `msg-1`, `msg-2`, ... would): same ids, other messages.
      const old = await stored();
      const fresh = seedMessages(op.seed).map((m, k) => renamed(m, old[k]?.id ?? `r${k}`));
      await checkpointer.deleteThread(threadId);
      heads.length = 0;
      turnNo = 0;
      await invoke(op.by, op.turn, fresh);
    } else if (op.kind === "travel") {
      const target = heads[Math.max(0, heads.length - 1 - op.back)];
      await invoke(op.by, op.turn, [], target);
    } else {
      const history = [];
      for await (const snapshot of agents.A.graph.getStateHistory(run)) history.push(snapshot);
      const target = history[op.pick % history.length];
      const checkpointId = target?.config.configurable?.checkpoint_id as string | undefined;
      if (target && target.next.length > 0 && checkpointId) {
        where = `${where} mid-run at ${target.next.join(",")}`;
        script = modelScript([op.turn], turnNo);
        turnNo += 1;
        await agents[op.by].invoke(null, { configurable: { thread_id: threadId, checkpoint_id: checkpointId } });
        const head = (await agents.A.graph.getState(run)).config.configurable?.checkpoint_id;
        if (typeof head === "string") heads.push(head);
      } else await invoke(op.by, op.turn, [], checkpointId);
    }
  }
  const mismatches: string[] = [];
  for (const [k, call] of calls.entries()) {
    const expected = await fromScratch(call, config, processes.A);
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
