/**
 * Fault injection over the whole stack (issue 9; spec R13, R15, R18): a 200-turn LoCoMo replay on
 * SqliteSaver and on PostgresSaver, with summarize and factRecall (`llm` mode) and workMemory each
 * on their own internal model that, at seeded random calls, throws, hangs past its timeout (50 ms),
 * answers empty, or answers malformed output. The stack is assembled in memoryStack's order by hand,
 * because memoryStack does not take the internal calls' timeouts.
 *
 * Asserted on every turn: the turn completes with its answer; the stored thread holds exactly the
 * expected messages (count and ids); a summary is replaced only by a normal summarizer answer and is
 * otherwise kept (never emptied, never error text) and still placed in the prompt; no fact is ever
 * dropped (no fact from a failed extraction is marked `llm`, the rules fill in); the work-memory
 * envelope changes only on a normal condensation; and no fault text ever reaches a prompt or the
 * stored state. The counts per fault kind and outcome are printed as a table.
 *
 * Seed: STACK_FAULTS_SEED (default below). Turns: STACK_FAULTS_TURNS (default 200).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { messageText, type PromptContextMode, readSummarySlot, systemText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { type Fact, factRecall, readFactSlot } from "@threadwise/fact-recall";
import { historyAware } from "@threadwise/history-aware";
import { summarize } from "@threadwise/summarize";
import { tokenCap } from "@threadwise/token-cap";
import { windowTrim } from "@threadwise/window-trim";
import { workMemory } from "@threadwise/work-memory";
import { createAgent } from "langchain";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { loadLocomo, replayExchanges } from "../bench/support/locomo.js";
import { freshDatabase, isPglite, testPoolMax } from "./support/postgres.js";
import {
  FAULT_KINDS,
  FAULT_SENTINEL,
  type FaultKind,
  FaultyModel,
  MALFORMED_FACTS,
  MALFORMED_NOTES,
  MALFORMED_SUMMARIES,
} from "./support/stack-faults.js";

const SEED = Number(process.env.STACK_FAULTS_SEED ?? 90901);
const TURNS = Number(process.env.STACK_FAULTS_TURNS ?? 200);
const TIMEOUT_MS = 50;
const HANG_MS = 200;
const FAULT_RATE = 0.5;

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** The replay: the first LoCoMo conversation with enough exchanges, user and answer texts. */
function replay(turns: number): Array<{ user: string; assistant: string }> {
  const conversation = loadLocomo().find((c) => replayExchanges(c).length >= turns);
  if (!conversation) throw new Error(`no LoCoMo conversation with ${turns} exchanges`);
  return replayExchanges(conversation)
    .slice(0, turns)
    .map((e) => ({ user: e.user || "(no text)", assistant: e.assistant || "(no answer)" }));
}

/** Outcome counters, per internal model. */
interface Outcomes {
  summary: { updated: number; kept: number; notDue: number };
  facts: { llm: number; rulesFallback: number };
  workMemory: { stored: number; keptAfterFault: number; notCalled: number };
}

interface BackendReport {
  backend: string;
  mode: PromptContextMode;
  turns: number;
  seconds: number;
  counts: Record<string, Record<FaultKind, number>>;
  outcomes: Outcomes;
  storedMessages: number;
  facts: number;
  summaryUpdates: number;
}

const reports: BackendReport[] = [];

async function replayWithFaults(
  backend: string,
  saver: BaseCheckpointSaver,
  mode: PromptContextMode,
  seed: number,
): Promise<BackendReport> {
  const exchanges = replay(TURNS);
  const started = Date.now();
  const agentModel = scriptedModel((messages: BaseMessage[]) => {
    const user = [...messages].reverse().find((m) => m.getType() === "human" && String(m.id).startsWith("u"));
    const t = Number(String(user?.id).slice(1));
    return new AIMessage({ id: `a${t}`, content: exchanges[t]?.assistant ?? "" });
  });
  const summarizer = new FaultyModel({
    seed,
    faultRate: FAULT_RATE,
    hangMs: HANG_MS,
    malformed: MALFORMED_SUMMARIES,
    ok: (messages, n) => `Summary #${n}: ${messageText(messages[messages.length - 1] as BaseMessage).split("\n").length} transcript lines.`,
  });
  const extractor = new FaultyModel({
    seed: seed + 1,
    faultRate: FAULT_RATE,
    hangMs: HANG_MS,
    malformed: MALFORMED_FACTS,
    ok: (_messages, n) =>
      JSON.stringify({ facts: [{ subject: "user", attribute: "event", value: `event ${n}`, text: `The user mentioned event ${n}.` }] }),
  });
  const condenser = new FaultyModel({
    seed: seed + 2,
    faultRate: FAULT_RATE,
    hangMs: HANG_MS,
    malformed: MALFORMED_NOTES,
    ok: (_messages, n) => `Work note ${n}.`,
  });
  const agent = createAgent({
    model: agentModel,
    systemPrompt: "You are a friendly companion who remembers the conversation.",
    checkpointer: saver,
    // memoryStack's order (packages/memory/src/middleware-stack.ts: windowTrim before summarize), with short internal timeouts.
    middleware: [
      windowTrim({ maxMessages: 8, logger: false }),
      summarize({ model: summarizer, windowSize: 8, threshold: 16, timeoutMs: TIMEOUT_MS, promptContextMode: mode, logger: false }),
      workMemory({ model: condenser as never, timeoutMs: TIMEOUT_MS, promptContextMode: mode, logger: false }),
      factRecall({ mode: "llm", model: extractor, timeoutMs: TIMEOUT_MS, maxFacts: 100_000, promptContextMode: mode, logger: false }),
      historyAware({ logger: false }),
      tokenCap({ maxTokens: 4000, logger: false }),
    ],
  });
  const config = { configurable: { thread_id: `faults-${backend}` } };
  const outcomes: Outcomes = {
    summary: { updated: 0, kept: 0, notDue: 0 },
    facts: { llm: 0, rulesFallback: 0 },
    workMemory: { stored: 0, keptAfterFault: 0, notCalled: 0 },
  };
  let previousSummary = "";
  let previousCovered = 0;
  let previousFacts = new Map<string, Fact>();
  let previousEntries = "[]";
  let summaryUpdates = 0;
  let facts = 0;
  let stored = 0;

  for (let t = 0; t < exchanges.length; t += 1) {
    const calls = {
      summarizer: summarizer.calls.length,
      extractor: extractor.calls.length,
      condenser: condenser.calls.length,
      model: agentModel.calls.length,
    };
    const result = await agent.invoke({ messages: [new HumanMessage({ id: `u${t}`, content: exchanges[t]?.user ?? "" })] }, config);
    // The turn completed with its answer.
    const last = result.messages[result.messages.length - 1] as BaseMessage;
    expect(last.id, `turn ${t}`).toBe(`a${t}`);
    expect(agentModel.calls.length, `turn ${t}: one model call`).toBe(calls.model + 1);

    const state = (await agent.graph.getState(config)).values as Record<string, unknown> & { messages: BaseMessage[] };
    // No stored message lost: exactly u0, a0, ..., ut, at.
    const ids = state.messages.map((m) => m.id);
    expect(ids.length, `turn ${t}: stored count`).toBe(2 * (t + 1));
    expect(ids.slice(-2)).toEqual([`u${t}`, `a${t}`]);
    if (t % 25 === 0 || t === exchanges.length - 1) {
      expect(ids).toEqual(Array.from({ length: 2 * (t + 1) }, (_, k) => (k % 2 === 0 ? `u${k / 2}` : `a${(k - 1) / 2}`)));
      // And their texts, unchanged.
      const texts = state.messages.map((m) => messageText(m));
      expect(texts).toEqual(exchanges.slice(0, t + 1).flatMap((e) => [e.user, e.assistant]));
    }
    stored = ids.length;

    // What the model received this turn: never fault text.
    const received = agentModel.calls[calls.model]?.messages as BaseMessage[];
    const prompt = received.map((m) => messageText(m)).join("\n");
    expect(prompt.includes(FAULT_SENTINEL), `turn ${t}: fault text in the prompt`).toBe(false);
    expect(prompt.includes("timed out after"), `turn ${t}: error text in the prompt`).toBe(false);

    // Summary: replaced only by a normal answer, otherwise kept; never empty or fault text; placed.
    const slot = readSummarySlot(state);
    const summary = slot.summary?.text ?? "";
    const summaryCalls = summarizer.calls.slice(calls.summarizer);
    expect(summaryCalls.length, `turn ${t}: at most one summarizer call`).toBeLessThanOrEqual(1);
    const summaryKind = summaryCalls[0]?.kind;
    if (summaryKind === undefined) {
      outcomes.summary.notDue += 1;
      expect(summary, `turn ${t}: summary changed without a call`).toBe(previousSummary);
    } else if (summaryKind === "ok") {
      outcomes.summary.updated += 1;
      expect(summary).toMatch(/^Summary #\d+: \d+ transcript lines\.$/);
      expect(summary).not.toBe(previousSummary);
      summaryUpdates += 1;
    } else {
      outcomes.summary.kept += 1;
      expect(summary, `turn ${t}: a ${summaryKind} replaced the summary`).toBe(previousSummary);
    }
    expect(summary.includes(FAULT_SENTINEL)).toBe(false);
    if (previousSummary !== "") expect(summary, `turn ${t}: summary emptied`).not.toBe("");
    if (summary !== "") expect(prompt.includes(`[Previous conversation summary]\n${summary}`), `turn ${t}: summary not placed`).toBe(true);
    previousSummary = summary;
    // The covered span only grows.
    const covered = slot.summary?.coveredCount ?? 0;
    expect(covered, `turn ${t}: summary coverage shrank`).toBeGreaterThanOrEqual(previousCovered);
    previousCovered = covered;

    // Facts: none dropped; a failed extraction leaves no `llm` fact for this message, the rules fill in.
    const factSlot = readFactSlot(state);
    const byKey = new Map(factSlot.facts.map((f) => [f.key, f]));
    for (const key of previousFacts.keys()) expect(byKey.has(key), `turn ${t}: fact ${key} dropped`).toBe(true);
    for (const fact of factSlot.facts) expect(`${fact.text} ${fact.value}`.includes(FAULT_SENTINEL)).toBe(false);
    const extractCalls = extractor.calls.slice(calls.extractor);
    expect(extractCalls.length, `turn ${t}: one extraction per user message`).toBe(1);
    const llmFromThisTurn = factSlot.facts.some((f) => f.origin === "llm" && f.sourceMessageId === `u${t}`);
    if (extractCalls[0]?.kind === "ok") {
      outcomes.facts.llm += 1;
      expect(llmFromThisTurn, `turn ${t}: the normal extraction was not stored`).toBe(true);
    } else {
      outcomes.facts.rulesFallback += 1;
      expect(llmFromThisTurn, `turn ${t}: a ${extractCalls[0]?.kind} extraction stored an llm fact`).toBe(false);
    }
    previousFacts = byKey;
    facts = byKey.size;

    // Work memory: changes only on a normal condensation; never fault text.
    const entries = JSON.stringify((slot.workMemory?.entries ?? []).map((e) => [e.id, e.text]));
    expect(entries.includes(FAULT_SENTINEL)).toBe(false);
    const condenseCalls = condenser.calls.slice(calls.condenser);
    expect(condenseCalls.length).toBeLessThanOrEqual(1);
    if (condenseCalls[0]?.kind === "ok") {
      outcomes.workMemory.stored += 1;
      expect(slot.workMemory?.entries.at(-1)?.id).toBe(`a${t}`);
    } else {
      if (condenseCalls[0] === undefined) outcomes.workMemory.notCalled += 1;
      else outcomes.workMemory.keptAfterFault += 1;
      expect(entries, `turn ${t}: a ${condenseCalls[0]?.kind ?? "skipped"} condensation changed the envelope`).toBe(previousEntries);
    }
    previousEntries = entries;
    expect(systemText(received[0] as never).includes(FAULT_SENTINEL)).toBe(false);
  }

  // Internal calls are tagged so they never stream (R13).
  for (const call of [...summarizer.calls, ...extractor.calls, ...condenser.calls]) expect(call.tags).toContain("nostream");
  // Let hung calls finish before the saver closes.
  await new Promise((resolve) => setTimeout(resolve, HANG_MS + 20));
  const report: BackendReport = {
    backend,
    mode,
    turns: exchanges.length,
    seconds: (Date.now() - started) / 1000,
    counts: { summarizer: { ...summarizer.counts }, "fact extractor": { ...extractor.counts }, condenser: { ...condenser.counts } },
    outcomes,
    storedMessages: stored,
    facts,
    summaryUpdates,
  };
  reports.push(report);
  console.log(renderReport(report));
  return report;
}

/** The counts as a Markdown table the lead can quote. */
function renderReport(r: BackendReport): string {
  const lines = [
    `### fault injection: ${r.backend}, ${r.mode}, ${r.turns} turns, seed ${SEED}, ${r.seconds.toFixed(1)} s`,
    "",
    `| internal model | calls | ${FAULT_KINDS.join(" | ")} |`,
    `|---|---:|${FAULT_KINDS.map(() => "---:").join("|")}|`,
  ];
  for (const [name, counts] of Object.entries(r.counts)) {
    const total = FAULT_KINDS.reduce((sum, k) => sum + counts[k], 0);
    lines.push(`| ${name} | ${total} | ${FAULT_KINDS.map((k) => counts[k]).join(" | ")} |`);
  }
  lines.push(
    "",
    "| outcome | count |",
    "|---|---:|",
    `| summary updated (normal answer) | ${r.outcomes.summary.updated} |`,
    `| summary kept after a fault | ${r.outcomes.summary.kept} |`,
    `| turns with no summarizer call | ${r.outcomes.summary.notDue} |`,
    `| facts from the model | ${r.outcomes.facts.llm} |`,
    `| facts from the rules after a fault | ${r.outcomes.facts.rulesFallback} |`,
    `| work memory stored | ${r.outcomes.workMemory.stored} |`,
    `| work memory kept after a fault | ${r.outcomes.workMemory.keptAfterFault} |`,
    `| turns with no condensation (answer skipped, e.g. a question) | ${r.outcomes.workMemory.notCalled} |`,
    `| turns completed | ${r.turns} |`,
    `| stored messages at the end (expected ${2 * r.turns}) | ${r.storedMessages} |`,
    `| facts stored at the end | ${r.facts} |`,
  );
  return lines.join("\n");
}

function expectFaultsInjected(report: BackendReport) {
  expect(report.turns).toBe(TURNS);
  expect(report.storedMessages).toBe(2 * TURNS);
  // Over the full replay every kind hits each internal model (shorter runs may miss one).
  if (TURNS < 200) return;
  for (const name of ["summarizer", "fact extractor", "condenser"]) {
    for (const kind of FAULT_KINDS) expect(report.counts[name]?.[kind], `${name} ${kind}`).toBeGreaterThan(0);
  }
  expect(report.summaryUpdates).toBeGreaterThan(0);
  expect(report.outcomes.summary.kept).toBeGreaterThan(0);
}

describe("faults in the internal models over a 200-turn replay", () => {
  it("SqliteSaver (legacy_system): every turn completes, nothing lost, summary and facts kept", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tw-stack-faults-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const saver = SqliteSaver.fromConnString(join(dir, "threads.db"));
    cleanups.push(() => (saver as unknown as { db: { close(): void } }).db.close());
    expectFaultsInjected(await replayWithFaults("sqlite", saver, "legacy_system", SEED));
  }, 600_000);

  it("PostgresSaver (stable_tail): every turn completes, nothing lost, summary and facts kept", async () => {
    const database = await freshDatabase("twfault");
    const pool = new pg.Pool({ connectionString: database.url, max: testPoolMax() });
    cleanups.push(async () => {
      if (isPglite()) await pool.query(`DROP SCHEMA IF EXISTS "${database.schema}" CASCADE`);
      await pool.end();
      if (!isPglite()) await database.drop();
    });
    const saver = new PostgresSaver(pool, undefined, { schema: database.schema });
    await saver.setup();
    expectFaultsInjected(await replayWithFaults(isPglite() ? "postgres (PGlite)" : "postgres", saver, "stable_tail", SEED));
  }, 600_000);
});
