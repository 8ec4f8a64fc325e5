/**
 * Recall on LoCoMo-format conversations (issue 15).
 *
 * Each conversation is replayed as one two-party thread: every turn is a user message with
 * `name` = the speaker, `id` = the turn id and `additional_kwargs.timestamp` = the session's date
 * line. Facts are extracted from every turn with
 * the heuristic rules, the speaker as subject (as `bench/facts.ts` does), each pointing at its turn.
 * Every QA item with resolvable evidence is then asked at the end of the conversation, with the
 * whole conversation out of the view (the view holds the question only), and four methods place
 * what they find in a block of at most 300 tokens (o200k_base, label line included):
 *
 * - `recall`: `@threadwise/recall` with its default options (BM25 over messages + facts, fused).
 * - `facts`: the facts alone (fact-recall's index), `- <fact>` lines.
 * - `bm25_turns`: BM25+ over the raw turns (`Speaker: text`, same library and tokenizer), whole
 *   turns in rank order while they fit; `bm25_whitespace` the same with a whitespace tokenizer.
 * - `recent_turns`: the most recent turns while they fit.
 *
 * A hit@k is an evidence turn among the top k of the ranked list (a fact counts as its source
 * turn); a block hit is an evidence turn inside what is placed (a recalled turn, a neighbour shown
 * with it, or the source of a placed fact). Timing: indexing ms per message (the incremental index
 * fed one message at a time), recall ms per call (rank + render, token counting included) at the
 * conversation's full length, CPU clock, median over the questions.
 *
 * Run: pnpm tsx bench/recall.ts [--data <file>] [--samples dev|heldout|<id,...>] [--json] [--items] [--budget 300]
 *      [--option key=value]
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { createTokenCounter, tokenize } from "@threadwise/core";
import {
  createFactIndex,
  emptyFactSlot,
  extractFactsHeuristic,
  type FactSlot,
  mergeFactSlot,
  planFactWrite,
} from "@threadwise/fact-recall";
import { createThreadRecallState, memoizeCount, recallForQuery, resolveRecallOptions } from "@threadwise/recall";
import { benchArgs, printJson } from "./support/cli.js";
import { LOCOMO_PATH, type LocomoConversation, loadLocomo, requireQuestions, selectSamples } from "./support/locomo.js";
import { turnIndex, turnPacker } from "./support/turn-block.js";

const cli = benchArgs(LOCOMO_PATH, {
  items: { type: "boolean", default: false },
  budget: { type: "string", default: "300" },
  samples: { type: "string" },
  option: { type: "string", multiple: true },
});
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dataPath = cli.data;
const json = cli.json;
// `--items`: the JSON also lists every item with the block hit of each method (to read misses).
const listItems = cli.values.items === true;
const itemRows: Array<{
  sampleId: string;
  category: number;
  question: string;
  evidence: string[];
  blockHit: Record<string, boolean>;
  recallBlock?: string[];
  /** The first five turns of each ranked method (a fact as its source turn), to read hit@5 misses. */
  top5?: Record<string, string[]>;
}> = [];
const budget = Number(cli.values.budget);

const METHODS = ["recall", "facts", "bm25_turns", "bm25_whitespace", "recent_turns"] as const;
type Method = (typeof METHODS)[number];
const CATEGORIES = [1, 2, 3, 4, 5] as const;
const CATEGORY_NAMES: Record<number, string> = { 1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial" };

interface Tally {
  items: number;
  hit3: number;
  hit5: number;
  block: number;
  tokens: number;
}
const zero = (): Tally => ({ items: 0, hit3: 0, hit5: 0, block: 0, tokens: 0 });
const tallies = new Map<string, Record<Method, Tally>>();
const tallyOf = (group: string) => {
  let t = tallies.get(group);
  if (!t) {
    t = Object.fromEntries(METHODS.map((m) => [m, zero()])) as Record<Method, Tally>;
    tallies.set(group, t);
  }
  return t;
};

const counter = createTokenCounter();
// As the middleware counts: js-tiktoken o200k_base behind recall's memo.
const countText = memoizeCount((text: string) => counter.countText(text));
// `--option key=value` (repeatable) sets any numeric or boolean recall option, for sweeps.
const overrides: Record<string, number | boolean> = {};
for (const setting of cli.values.option ?? []) {
  const [key, value] = setting.split("=");
  if (key && value !== undefined) overrides[key] = value === "true" ? true : value === "false" ? false : Number(value);
}
const options = resolveRecallOptions({ maxTokens: budget, ...overrides }, {});
const whitespace = (text: string) =>
  text
    .toLowerCase()
    .split(/[\s.,!?;:"'()[\]]+/u)
    .filter((w) => w !== "");

/** Both speakers as user messages with `name`: a two-party thread, as `bench/facts.ts` replays it. */
function messagesOf(conv: LocomoConversation): BaseMessage[] {
  return conv.turns.map(
    (turn) => new HumanMessage({ content: turn.text, id: turn.diaId, name: turn.speaker, additional_kwargs: { timestamp: turn.dateTime } }),
  );
}

function factsOf(conv: LocomoConversation): FactSlot {
  let slot = emptyFactSlot();
  conv.turns.forEach((turn, i) => {
    const candidates = extractFactsHeuristic(`${turn.speaker}: ${turn.text}`, { speakerPrefix: true });
    const plan = planFactWrite(slot, candidates, { sourceMessageId: turn.diaId, turn: i + 1, origin: "heuristic", maxFacts: 200 });
    slot = mergeFactSlot(slot, { ...plan, cursor: turn.diaId, turn: i + 1 });
  });
  return slot;
}

/** Whole lines in rank order while they fit in the budget (label line included). */
const pack = turnPacker(budget, countText);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : (s[Math.floor(s.length / 2)] as number);
};
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const samples = cli.values.samples;
const conversations = selectSamples(loadLocomo(dataPath), samples);
requireQuestions(conversations, dataPath);
const perConversation: Array<{ sampleId: string; turns: number; indexMsPerMessage: number; recallMsPerCall: number }> = [];
/** Block hits on categories 1-4 per conversation and method: the margin by conversation. */
const blockByConversation = new Map<string, { items: number } & Record<Method, number>>();
let unresolved = 0;
let skipped = 0;

for (const conv of conversations) {
  unresolved += conv.unresolvedEvidence;
  const messages = messagesOf(conv);
  const slot = factsOf(conv);
  const state = createThreadRecallState(options);
  // Incremental indexing, one message at a time, as a thread grows.
  const growing: BaseMessage[] = [];
  // Warm up js-tiktoken and MiniSearch on another state so the first conversation is not penalized.
  createThreadRecallState(options).index.sync(messages.slice(0, 50));
  const t0 = cpuMs();
  for (const message of messages) {
    growing.push(message);
    state.index.sync(growing);
  }
  const indexMs = cpuMs() - t0;
  state.facts.sync(slot.facts);

  const factIndex = createFactIndex(slot.facts);
  const bm25 = turnIndex(conv.turns, tokenize);
  const bm25ws = turnIndex(conv.turns, whitespace);
  const lineOf = new Map(conv.turns.map((t) => [t.diaId, `${t.speaker}: ${t.text}`]));
  const recent = [...conv.turns].reverse().map((t) => ({ id: t.diaId, text: `${t.speaker}: ${t.text}` }));
  const recentBlock = pack(recent, "Recent turns");
  const recallTimes: number[] = [];
  const recallFacts = options.facts ? { facts: slot.facts } : {};

  for (const item of conv.qa) {
    if (item.evidence.length === 0) {
      skipped += 1;
      continue;
    }
    const evidence = new Set(item.evidence);
    const hit = (ids: readonly string[]) => ids.some((id) => evidence.has(id));
    const results: Record<Method, { ranked: string[]; placed: string[]; tokens: number }> = {} as never;

    const start = cpuMs();
    const rendered = recallForQuery(state, { query: item.question, inView: new Set(), ...recallFacts }, options, countText);
    recallTimes.push(cpuMs() - start);
    // The ranked list as recall would place it, without the budget: facts count as their source turn.
    const ranked = recallForQuery(
      state,
      { query: item.question, inView: new Set(), ...recallFacts },
      { ...options, maxTokens: 100_000, maxItems: 5, neighbours: 0 },
      countText,
    );
    results.recall = {
      ranked: ranked.items.map((it) => (it.kind === "message" ? it.entry.id : (it.fact.sourceMessageId ?? ""))),
      placed: [
        ...rendered.messageIds,
        ...rendered.items.filter((it) => it.kind === "fact").map((it) => (it.kind === "fact" ? (it.fact.sourceMessageId ?? "") : "")),
      ],
      tokens: rendered.tokens,
    };

    const facts = factIndex.search(item.question, 30);
    const factBlock = pack(
      facts.map((r) => ({ id: r.fact.sourceMessageId ?? "", text: `- ${r.fact.text}` })),
      "Known facts",
    );
    results.facts = { ranked: facts.map((r) => r.fact.sourceMessageId ?? ""), placed: factBlock.ids, tokens: factBlock.tokens };

    for (const [method, index] of [
      ["bm25_turns", bm25],
      ["bm25_whitespace", bm25ws],
    ] as const) {
      const hits = index
        .search(item.question)
        .slice(0, 30)
        .map((r) => String(r.id));
      const block = pack(
        hits.map((id) => ({ id, text: lineOf.get(id) as string })),
        "Earlier turns",
      );
      results[method] = { ranked: hits, placed: block.ids, tokens: block.tokens };
    }
    results.recent_turns = { ranked: recent.map((r) => r.id), placed: recentBlock.ids, tokens: recentBlock.tokens };

    if (listItems)
      itemRows.push({
        sampleId: conv.sampleId,
        category: item.category,
        question: item.question,
        evidence: item.evidence,
        blockHit: Object.fromEntries(METHODS.map((m) => [m, hit(results[m].placed)])),
        recallBlock: results.recall.placed,
        top5: Object.fromEntries(METHODS.map((m) => [m, results[m].ranked.slice(0, 5)])),
      });
    if (item.category <= 4) {
      let c = blockByConversation.get(conv.sampleId);
      if (!c) {
        c = { items: 0, ...(Object.fromEntries(METHODS.map((m) => [m, 0])) as Record<Method, number>) };
        blockByConversation.set(conv.sampleId, c);
      }
      c.items += 1;
      for (const method of METHODS) if (hit(results[method].placed)) c[method] += 1;
    }
    for (const group of [`${item.category}`, item.category <= 4 ? "1-4" : "", "all"]) {
      if (group === "") continue;
      const t = tallyOf(group);
      for (const method of METHODS) {
        const r = results[method];
        const m = t[method];
        m.items += 1;
        if (hit(r.ranked.slice(0, 3))) m.hit3 += 1;
        if (hit(r.ranked.slice(0, 5))) m.hit5 += 1;
        if (hit(r.placed)) m.block += 1;
        m.tokens += r.tokens;
      }
    }
  }
  perConversation.push({
    sampleId: conv.sampleId,
    turns: conv.turns.length,
    indexMsPerMessage: indexMs / messages.length,
    recallMsPerCall: median(recallTimes),
  });
}

const pct = (n: number, d: number) => (d === 0 ? 0 : Math.round((1000 * n) / d) / 10);
const groups = [...CATEGORIES.map(String), "1-4", "all"].filter((g) => tallies.has(g));
const table = groups.map((group) => {
  const t = tallies.get(group) as Record<Method, Tally>;
  return {
    category: group,
    name: CATEGORY_NAMES[Number(group)] ?? group,
    items: t.recall.items,
    methods: Object.fromEntries(
      METHODS.map((m) => [
        m,
        {
          hit3: pct(t[m].hit3, t[m].items),
          hit5: pct(t[m].hit5, t[m].items),
          blockHit: pct(t[m].block, t[m].items),
          meanBlockTokens: t[m].items === 0 ? 0 : Math.round(t[m].tokens / t[m].items),
        },
      ]),
    ),
  };
});
const longest = [...perConversation].sort((a, b) => b.turns - a.turns)[0];
const result = {
  data: dataPath.startsWith(root) ? dataPath.slice(root.length + 1) : dataPath,
  samples: samples ?? "all",
  budgetTokens: budget,
  options: overrides,
  conversations: conversations.length,
  byConversation: [...blockByConversation].map(([sampleId, c]) => ({
    sampleId,
    items: c.items,
    blockHit: Object.fromEntries(METHODS.map((m) => [m, pct(c[m], c.items)])),
    recallMinusBm25: Math.round(10 * (pct(c.recall, c.items) - pct(c.bm25_turns, c.items))) / 10,
  })),
  itemsSkippedWithoutEvidence: skipped,
  unresolvedEvidence: unresolved,
  categories: table,
  timing: {
    indexMsPerMessage: Math.round(1000 * median(perConversation.map((c) => c.indexMsPerMessage))) / 1000,
    recallMsPerCallMedian: Math.round(1000 * median(perConversation.map((c) => c.recallMsPerCall))) / 1000,
    longest: longest
      ? { sampleId: longest.sampleId, turns: longest.turns, recallMsPerCall: Math.round(1000 * longest.recallMsPerCall) / 1000 }
      : null,
    perConversation: perConversation.map((c) => ({
      ...c,
      indexMsPerMessage: Math.round(1000 * c.indexMsPerMessage) / 1000,
      recallMsPerCall: Math.round(1000 * c.recallMsPerCall) / 1000,
    })),
    clock: "CPU (process.cpuUsage), median",
    node: process.version,
  },
  ...(listItems ? { items: itemRows } : {}),
};

if (json) printJson(result);
else {
  const lines = [
    `# Recall on ${result.data}${samples ? ` [${samples}]` : ""} (${result.conversations} conversations, block of ${budget} tokens)`,
    "",
    "Hit in %: hit@3 / hit@5 of the ranked list, and hit within the placed block; mean tokens of the block.",
    "",
    `| category | items | ${METHODS.map((m) => `${m} @3 / @5 / block / tokens`).join(" | ")} |`,
    `|---|---:|${METHODS.map(() => "---:").join("|")}|`,
    ...table.map(
      (row) =>
        `| ${row.category} ${row.name} | ${row.items} | ${METHODS.map((m) => {
          const x = row.methods[m] as { hit3: number; hit5: number; blockHit: number; meanBlockTokens: number };
          return `${x.hit3} / ${x.hit5} / **${x.blockHit}** / ${x.meanBlockTokens}`;
        }).join(" | ")} |`,
    ),
    "",
    "Block hit on categories 1-4 by conversation (recall, BM25 turns, difference):",
    "",
    ...result.byConversation.map(
      (c) =>
        `- ${c.sampleId} (${c.items} items): ${c.blockHit.recall} vs ${c.blockHit.bm25_turns} (${c.recallMinusBm25 >= 0 ? "+" : ""}${c.recallMinusBm25})`,
    ),
    "",
    `Indexing ${result.timing.indexMsPerMessage} ms per message; recall ${result.timing.recallMsPerCallMedian} ms per call (median over conversations; longest ${longest?.sampleId} with ${longest?.turns} turns: ${result.timing.longest?.recallMsPerCall} ms). CPU clock, Node ${process.version}.`,
    `Skipped ${skipped} items without evidence; ${unresolved} evidence ids did not resolve.`,
  ];
  console.log(lines.join("\n"));
}
