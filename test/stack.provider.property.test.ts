/**
 * The view contract over random stacks (issue 12): random subsets and orders of windowTrim,
 * tokenCap, summarize, factRecall, workMemory, historyAware, persistTrim and historySeed with
 * random options and placement modes, over several checkpointed turns (MemorySaver) of random
 * threads (parallel calls answered in any order, stored orphans, unanswered and rejected calls,
 * stored system messages, repeated call ids, image blocks, Korean and English, empty user
 * messages OpenAI answered, seeded outside history). On every model call:
 * - the strict provider validator of `@threadwise/core/testing` refuses nothing, for any of
 *   OpenAI, Anthropic, Gemini and Bedrock, in what the agent's model or any side model receives;
 * - when summarize is in the stack and tokenCap forced no drop (no `cap` cut), summary coverage
 *   plus view is the whole stored thread (`request.state.messages`): every message the summary does not cover is sent
 *   (orphans and stored system messages aside: they are never sent as such), and no message the
 *   summary covers is.
 * Known failures of the contract (reported, see `test/support/known-view-failures.ts`) are counted
 * and printed; any other problem fails the property. A self-check shows each check fails on a
 * middleware that breaks it.
 *
 * Seeded: STACK_PROVIDER_SEED replays a run, STACK_PROVIDER_PATH one reported case,
 * STACK_PROVIDER_RUNS sets the number of cases; fast-check prints the seed and the shrunk case.
 */
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import {
  groupMessages,
  isAssembledRequest,
  isContextMessage,
  messageText,
  messageType,
  type PromptContextMode,
  toolCallsOf,
  type ViewDecisions,
  viewDecisionsOf,
} from "@threadwise/core";
import {
  PROVIDERS,
  type ProviderViolation,
  requestInput,
  type StrictFakeModel,
  scriptedModel,
  validateProviderRequest,
} from "@threadwise/core/testing";
import { factRecall } from "@threadwise/fact-recall";
import { historyAware } from "@threadwise/history-aware";
import { historySeed } from "@threadwise/history-seed";
import { persistTrim } from "@threadwise/persist-trim";
import { summarize } from "@threadwise/summarize";
import { tokenCap } from "@threadwise/token-cap";
import { windowTrim } from "@threadwise/window-trim";
import { workMemory } from "@threadwise/work-memory";
import fc from "fast-check";
import { type AgentMiddleware, createAgent, createMiddleware, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { emptyKnownCounts, KNOWN_VIEW_FAILURES, type KnownViewFailure, knownRefusal } from "./support/known-view-failures.js";
import { inAcceptedOrder } from "./support/middleware-order.js";
import { wireViolations } from "./support/provider-wire.js";
import {
  emptyUserArb,
  lookupResult,
  modelScript,
  type SeedStep,
  seedMessages,
  seedStepArb,
  type ThreadCase,
  textArb,
  turnArb,
  userMessage,
} from "./support/stack-threads.js";

const SEED = Number(process.env.STACK_PROVIDER_SEED ?? 20261201);
const RUNS = Number(process.env.STACK_PROVIDER_RUNS ?? 40);
const PATH = process.env.STACK_PROVIDER_PATH;
const SYSTEM_PROMPT = "You are a helpful travel assistant. 친절한 여행 도우미입니다.";

const NAMES = ["windowTrim", "tokenCap", "summarize", "factRecall", "workMemory", "historyAware", "persistTrim", "historySeed"] as const;
type Name = (typeof NAMES)[number];

interface StackConfig {
  order: Name[];
  mode: PromptContextMode;
  window: { maxMessages: number; eviction: "sliding" | "chunked"; startOn: "human" | "any" | undefined };
  cap: { maxTokens: number; eviction: "sliding" | "chunked" };
  summary: { windowSize: number; threshold: number };
  facts: { maxItems: number };
  work: { maxItems: number; maxCharacters: number };
  keepGroups: number;
  seedMax: number;
}

const configArb: fc.Arbitrary<StackConfig> = fc.record({
  // windowTrim inside summarize and a producer of context inside tokenCap are refused (core,
  // ARCHITECTURE "Middleware order"): only orders that run are drawn.
  order: fc.shuffledSubarray([...NAMES], { minLength: 1, maxLength: NAMES.length }).map(inAcceptedOrder),
  mode: fc.constantFrom<PromptContextMode>("legacy_system", "stable_tail"),
  window: fc.record({
    maxMessages: fc.integer({ min: 2, max: 12 }),
    eviction: fc.constantFrom("sliding" as const, "chunked" as const),
    startOn: fc.constantFrom("human" as const, "any" as const, undefined),
  }),
  cap: fc.record({ maxTokens: fc.integer({ min: 150, max: 3000 }), eviction: fc.constantFrom("sliding" as const, "chunked" as const) }),
  summary: fc.record({ windowSize: fc.integer({ min: 2, max: 8 }), threshold: fc.integer({ min: 3, max: 16 }) }),
  facts: fc.record({ maxItems: fc.integer({ min: 1, max: 3 }) }),
  work: fc.record({ maxItems: fc.integer({ min: 1, max: 3 }), maxCharacters: fc.integer({ min: 40, max: 400 }) }),
  keepGroups: fc.integer({ min: 2, max: 10 }),
  seedMax: fc.integer({ min: 1, max: 8 }),
});

const rejectedArb: fc.Arbitrary<SeedStep> = fc.record({
  kind: fc.constant("rejected" as const),
  calls: fc.uniqueArray(fc.constantFrom("call_1", "call_2", "call_3"), { minLength: 1, maxLength: 2 }),
});

/** Outside history for historySeed (A2A items): roles repeat, parts may be empty. */
const seedHistoryArb = fc.array(
  fc.record({
    role: fc.constantFrom("user", "agent"),
    parts: fc.array(fc.record({ kind: fc.constant("text"), text: fc.oneof(textArb, fc.constant("")) }), { minLength: 1, maxLength: 2 }),
  }),
  { minLength: 1, maxLength: 6 },
);

interface ProviderCase extends ThreadCase {
  /** When historySeed is in the stack: the first turn sends only the user message and this history. */
  seedHistory: Array<{ role: string; parts: Array<{ kind: string; text: string }> }> | undefined;
}

const caseArb: fc.Arbitrary<ProviderCase> = fc.record({
  seed: fc.array(
    fc.oneof({ weight: 6, arbitrary: seedStepArb }, { weight: 1, arbitrary: rejectedArb }, { weight: 1, arbitrary: emptyUserArb }),
    { maxLength: 20 },
  ),
  turns: fc.array(turnArb, { minLength: 2, maxLength: 4 }),
  seedHistory: fc.option(seedHistoryArb, { nil: undefined }),
});

const lookup = tool(async ({ q }: { q: string }) => lookupResult(q), {
  name: "lookup",
  description: "Looks up seats and bookings.",
  schema: z.object({ q: z.string() }),
});

function build(name: Name, c: StackConfig, side: { summarizer: StrictFakeModel; condenser: StrictFakeModel }): AgentMiddleware {
  switch (name) {
    case "windowTrim":
      return windowTrim({
        maxMessages: c.window.maxMessages,
        eviction: c.window.eviction,
        ...(c.window.startOn ? { startOn: c.window.startOn } : {}),
        logger: false,
      });
    case "tokenCap":
      return tokenCap({ maxTokens: c.cap.maxTokens, encoding: "o200k_base", eviction: c.cap.eviction, logger: false });
    case "summarize":
      return summarize({ model: side.summarizer, ...c.summary, promptContextMode: c.mode, logger: false });
    case "factRecall":
      return factRecall({ mode: "heuristic", maxItems: c.facts.maxItems, promptContextMode: c.mode, logger: false });
    case "workMemory":
      return workMemory({ model: side.condenser, ...c.work, promptContextMode: c.mode, logger: false });
    case "historyAware":
      return historyAware({ logger: false });
    case "persistTrim":
      return persistTrim({ keepGroups: c.keepGroups, logger: false });
    case "historySeed":
      return historySeed({ maxMessages: c.seedMax, logger: false });
  }
}

/** One model call as the innermost middleware saw it. */
interface Seen {
  thread: BaseMessage[];
  decisions: ViewDecisions;
  sent: BaseMessage[];
  /** Whether the request reached the model as core assembled it (every threadwise middleware hands on an assembled request). */
  assembled: boolean;
}

/** One refused request. */
interface Rejection {
  model: "agent" | "summarizer" | "condenser";
  request: number;
  violation: ProviderViolation;
  /** The refused request. */
  sent: readonly BaseMessage[];
  /** For the agent's model: what the probe saw for this call. */
  seen: Seen | undefined;
}

interface CaseRun {
  seen: Seen[];
  rejections: Rejection[];
}

async function runCase(c: ProviderCase, config: StackConfig, extra: AgentMiddleware[] = []): Promise<CaseRun> {
  const script = modelScript(c.turns);
  const model = scriptedModel((_m, call) => script[call]?.() ?? new AIMessage({ id: `extra-${call}`, content: "extra" }), {
    onViolation: "record",
    providers: PROVIDERS,
  });
  const side = {
    summarizer: scriptedModel((m) => `Summary: ${messageText(m[m.length - 1] as BaseMessage).slice(-40)}`, {
      onViolation: "record",
      providers: PROVIDERS,
    }),
    condenser: scriptedModel((m) => `Note: ${messageText(m[m.length - 1] as BaseMessage).slice(0, 40)}`, {
      onViolation: "record",
      providers: PROVIDERS,
    }),
  };
  const seen: Seen[] = [];
  const probe = createMiddleware({
    name: "test/view-probe",
    wrapModelCall: (request, handler) => {
      const decisions = viewDecisionsOf(request);
      // The stored thread, not `threadMessages(request)`: a broken middleware may have rewritten the list.
      const thread = (request.state.messages as BaseMessage[]).filter((m) => messageType(m) !== "remove");
      seen.push({ thread, decisions, sent: requestInput(request), assembled: isAssembledRequest(request) });
      return handler(request);
    },
  });
  const agent = createAgent({
    model,
    tools: [lookup],
    systemPrompt: SYSTEM_PROMPT,
    checkpointer: new MemorySaver(),
    middleware: [...config.order.map((name) => build(name, config, side)), ...extra, probe] as AgentMiddleware[],
  });
  const seeding = config.order.includes("historySeed") && c.seedHistory !== undefined;
  for (let t = 0; t < c.turns.length; t += 1) {
    const user = userMessage(c.turns[t] as never, t);
    const input = t > 0 ? [user] : seeding ? [user] : [...seedMessages(c.seed), user];
    await agent.invoke(
      { messages: input },
      { configurable: { thread_id: "provider-prop" }, ...(t === 0 && seeding ? { context: { seedHistory: c.seedHistory } } : {}) },
    );
  }
  const rejections: Rejection[] = [];
  for (const [name, m] of [
    ["agent", model],
    ["summarizer", side.summarizer],
    ["condenser", side.condenser],
  ] as const) {
    for (const r of m.providerLog.rejected) {
      for (const violation of r.violations) {
        const sent = (m.calls[r.request]?.messages ?? []) as BaseMessage[];
        rejections.push({ model: name, request: r.request, violation, sent, seen: name === "agent" ? seen[r.request] : undefined });
      }
    }
  }
  return { seen, rejections };
}

/** Whether the last message besides system messages is an AI message (a prefill to Anthropic). */
function endsOnAi(messages: readonly BaseMessage[]): boolean {
  const last = messages.filter((m) => messageType(m) !== "system").at(-1);
  return last !== undefined && messageType(last) === "ai";
}

/**
 * Calls whose request ends on an AI message while the thread does not: a prefill no one asked for
 * (Claude 4.6 and later refuse it: the validator's opt-in `assistant_prefill`).
 */
function prefillProblems(run: CaseRun): string[] {
  return run.seen.flatMap((call, i) =>
    endsOnAi(call.sent) && !endsOnAi(call.thread)
      ? [`call ${i}: the request ends on an AI message, the thread on a ${messageType(call.thread.at(-1) as BaseMessage)} message`]
      : [],
  );
}

/**
 * What a provider package's converter sends that the API refuses (test/support/provider-wire.ts), on
 * agent requests the message rules accepted: a request they refuse is counted above (known or not).
 */
function wireProblems(run: CaseRun): string[] {
  return run.seen.flatMap((call, i) => {
    if (validateProviderRequest(call.sent, { providers: PROVIDERS }).length > 0) return [];
    return wireViolations(call.sent).map((w) => `call ${i}: as ${w.api} sends it: ${w.rule} at ${w.at}: ${w.message}`);
  });
}

function describeRejection(r: Rejection): string {
  const v = r.violation;
  return `${r.model} request ${r.request}: ${v.provider} ${v.rule} at ${v.index}: ${v.message}`;
}

function knownClassOf(r: Rejection): KnownViewFailure | undefined {
  return knownRefusal(r.violation, r.sent);
}

/** Whether `m` reached the model: by id, or inside a same-role message core merged it into. */
function sentIn(m: BaseMessage, sent: readonly BaseMessage[]): boolean {
  if (sent.some((s) => s.id !== undefined && s.id === m.id)) return true;
  const text = messageText(m);
  return text !== "" && sent.some((s) => messageType(s) === messageType(m) && messageText(s).includes(text));
}

/** Coverage + view = thread, for each call where summarize is in the stack and no cap cut happened. */
function coverageProblems(run: CaseRun, config: StackConfig): string[] {
  if (!config.order.includes("summarize")) return [];
  const problems: string[] = [];
  run.seen.forEach((call, i) => {
    if (call.decisions.cuts.some((cut) => cut.reason === "cap")) return;
    const thread = call.thread.filter((m) => !isContextMessage(m));
    const first = call.decisions.coverage?.firstUncovered ?? null;
    let from = first === null ? 0 : thread.indexOf(first);
    if (first !== null && from === -1) from = thread.findIndex((m) => m.id !== undefined && m.id === first.id);
    if (from === -1) {
      problems.push(`call ${i}: the summary's first uncovered message ${first?.id} is not in the thread`);
      return;
    }
    const unsendable = new Set<BaseMessage>();
    for (const g of groupMessages(thread)) if (g.kind === "orphan" || g.kind === "system") for (const m of g.messages) unsendable.add(m);
    const sent = call.sent.filter((m) => messageType(m) !== "system");
    const viewStart = thread.findIndex((m) => !unsendable.has(m) && sentIn(m, sent));
    thread.forEach((m, k) => {
      if (unsendable.has(m)) return;
      const inView = sentIn(m, sent);
      if (k >= from && !inView) {
        // Before the view's first message: the view starts past the coverage (a known failure).
        const known = viewStart === -1 || k < viewStart;
        problems.push(
          `${known ? "[start-past-coverage] " : ""}call ${i}: ${messageType(m)} ${m.id} is neither in the view nor in the summary`,
        );
      }
      if (k < from && sent.some((s) => s.id !== undefined && s.id === m.id))
        problems.push(`call ${i}: ${messageType(m)} ${m.id} is both in the summary and in the view`);
    });
  });
  return problems;
}

async function property(seed: number) {
  const stats = { cases: 0, calls: 0, withSummarize: 0, coverageChecked: 0, rejectedRequests: 0 };
  const known = emptyKnownCounts();
  console.log(`[stack.provider] seed=${seed} runs=${RUNS} (replay: STACK_PROVIDER_SEED=${seed})`);
  await fc.assert(
    fc.asyncProperty(caseArb, configArb, async (c, config) => {
      const run = await runCase(c, config);
      const unknown: string[] = [];
      const inCase = new Set<KnownViewFailure>();
      for (const r of run.rejections) {
        const k = knownClassOf(r);
        if (k) {
          known[k].occurrences += 1;
          inCase.add(k);
        } else unknown.push(describeRejection(r));
      }
      run.seen.forEach((call, i) => {
        if (!call.assembled) unknown.push(`call ${i}: the request was not assembled by core`);
      });
      unknown.push(...prefillProblems(run));
      unknown.push(...wireProblems(run));
      for (const p of coverageProblems(run, config)) {
        if (p.startsWith("[start-past-coverage]")) {
          known["start-past-coverage"].occurrences += 1;
          inCase.add("start-past-coverage");
        } else unknown.push(p);
      }
      for (const k of inCase) known[k].cases += 1;
      stats.cases += 1;
      stats.calls += run.seen.length;
      stats.rejectedRequests += new Set(run.rejections.map((r) => `${r.model}/${r.request}`)).size;
      if (config.order.includes("summarize")) {
        stats.withSummarize += 1;
        stats.coverageChecked += run.seen.filter((s) => !s.decisions.cuts.some((cut) => cut.reason === "cap")).length;
      }
      if (unknown.length > 0) throw new Error(`${unknown.slice(0, 8).join("\n")}\nconfig: ${JSON.stringify(config)}`);
    }),
    { seed, numRuns: RUNS, endOnFailure: true, ...(PATH ? { path: PATH } : {}) },
  );
  console.log(`[stack.provider] seed=${seed}`, JSON.stringify(stats), "known failures:", JSON.stringify(known));
  return { stats, known };
}

describe("random stacks over random threads: every provider accepts every request; coverage + view = thread", () => {
  // Runs once; the known-failure test below reads the same figures.
  let result: Awaited<ReturnType<typeof property>> | undefined;
  const once = async () => {
    result ??= await property(SEED);
    return result;
  };

  it("no validator rejection and no gap or double coverage, except the KNOWN FAILURES of test/support/known-view-failures.ts", async () => {
    const { stats } = await once();
    expect(stats.cases).toBe(RUNS);
    expect(stats.withSummarize).toBeGreaterThan(0);
    expect(stats.coverageChecked).toBeGreaterThan(0);
  }, 600_000);

  it("KNOWN FAILURES still occur (issue 12, reported): when this fails, shorten test/support/known-view-failures.ts", async () => {
    const { known } = await once();
    const occurring = KNOWN_VIEW_FAILURES.filter((k) => known[k].occurrences > 0);
    expect(occurring.length).toBeGreaterThan(0);
  }, 600_000);

  it("the checks catch a middleware that breaks the request or the coverage", async () => {
    const c: ProviderCase = {
      seed: [
        { kind: "user", content: { text: "I live in Seoul.", blocks: false, image: false } },
        { kind: "assistant", content: { text: "Noted.", blocks: false, image: false } },
      ],
      turns: [
        {
          user: { text: "Check seat 12A.", blocks: false, image: false },
          rounds: [{ calls: ["call_1", "call_2"], queries: ["short", "short", "short"] }],
          answer: "Free.",
        },
        { user: { text: "저는 부산에 살아요.", blocks: false, image: false }, rounds: [], answer: "알겠어요." },
        { user: { text: "Where do I live?", blocks: false, image: false }, rounds: [], answer: "Busan." },
        { user: { text: "Thanks.", blocks: false, image: false }, rounds: [], answer: "Bye." },
      ],
      seedHistory: undefined,
    };
    const config: StackConfig = {
      ...(fc.sample(configArb, { seed: 1, numRuns: 1 })[0] as StackConfig),
      order: ["windowTrim", "summarize"],
      window: { maxMessages: 4, eviction: "sliding", startOn: "human" },
      summary: { windowSize: 4, threshold: 5 },
      mode: "stable_tail",
    };
    const clean = await runCase(c, config);
    expect(clean.rejections.map(describeRejection)).toEqual([]);
    expect(coverageProblems(clean, config)).toEqual([]);
    // A summary exists by the last call, so something is covered.
    expect(clean.seen.some((s) => s.decisions.coverage?.firstUncovered)).toBe(true);
    // Drops the newest tool result: an unanswered call, refused by every provider.
    const dropsResult = createMiddleware({
      name: "test/drops-result",
      wrapModelCall: (request, handler) => {
        const at = request.messages.map((m) => messageType(m)).lastIndexOf("tool");
        return handler(at === -1 ? request : { ...request, messages: request.messages.filter((_, k) => k !== at) });
      },
    });
    expect(prefillProblems(clean)).toEqual([]);
    // Sends the request up to its last AI message: a prefill the thread did not make.
    const endsOnAnswer = createMiddleware({
      name: "test/ends-on-answer",
      wrapModelCall: (request, handler) => {
        const at = request.messages.map((m) => messageType(m)).lastIndexOf("ai");
        return handler(at === -1 ? request : { ...request, messages: request.messages.slice(0, at + 1) });
      },
    });
    expect(prefillProblems(await runCase(c, config, [endsOnAnswer])).length).toBeGreaterThan(0);
    const broken = await runCase(c, config, [dropsResult]);
    expect(broken.rejections.some((r) => r.violation.rule === "unanswered_tool_call" && knownClassOf(r) === undefined)).toBe(true);
    // Sends the thread's first message again at the head: it is covered by the summary.
    const resendsCovered = createMiddleware({
      name: "test/resends-covered",
      wrapModelCall: (request, handler) => {
        const first = request.state.messages[0] as BaseMessage;
        return handler({ ...request, messages: [first, ...request.messages.filter((m) => m.id !== first.id)] });
      },
    });
    const doubled = await runCase(c, config, [resendsCovered]);
    expect(coverageProblems(doubled, config).some((p) => p.includes("both in the summary and in the view"))).toBe(true);
    // Leaves out an uncovered plain assistant answer before the newest user message: a gap (and,
    // for Bedrock, two user messages in a row).
    const dropsAnswer = createMiddleware({
      name: "test/drops-answer",
      wrapModelCall: (request, handler) => {
        const victim = request.messages.find((m) => messageType(m) === "ai" && toolCallsOf(m).length === 0);
        return handler(victim ? { ...request, messages: request.messages.filter((m) => m !== victim) } : request);
      },
    });
    const gap = await runCase(c, config, [dropsAnswer]);
    expect(coverageProblems(gap, config).some((p) => p.includes("is neither in the view nor in the summary"))).toBe(true);
    expect(gap.rejections.some((r) => r.violation.provider === "bedrock" && r.violation.rule === "consecutive_roles")).toBe(true);
  }, 120_000);
});
