/**
 * Fact recall on LoCoMo (issue 5): replays every turn of each conversation as a user message
 * prefixed with its speaker ("Caroline: ..."), extracts facts with the heuristic rules, then for
 * every QA item recalls the top-k facts for the question and counts a hit when a recalled fact's
 * source turn is in the item's evidence. Two baselines on the same questions: BM25 over the raw
 * turns (same library, tokenizer and k) and the k most recent turns.
 *
 * Run: pnpm tsx bench/facts.ts            (prints Markdown, writes bench/results/facts.md)
 *      pnpm tsx bench/facts.ts --data <file> --json   (another LoCoMo file; figures as JSON, no file written)
 *      pnpm tsx bench/facts.ts --data <file> --json --items   (the JSON also lists every item: the
 *        1-based rank of the first fact and of the first BM25 turn from its evidence, 0 when none in the top 10)
 * Runs on the extraction and recall functions directly, not through an agent.
 */
import { writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { tokenize } from "@threadwise/core";
import {
  createFactIndex,
  DEFAULT_MAX_FACTS,
  emptyFactSlot,
  extractFactsHeuristic,
  type FactSlot,
  mergeFactSlot,
  planFactWrite,
} from "@threadwise/fact-recall";
import MiniSearch from "minisearch";
import { benchArgs, printJson } from "./support/cli.js";
import { LOCOMO_PATH, type LocomoConversation, loadLocomo, requireQuestions } from "./support/locomo.js";

const args = benchArgs(LOCOMO_PATH, { items: { type: "boolean", default: false } });
/** `--items`: one row per item (default bound only), to compare runs item by item. */
const itemRows: Array<{ sampleId: string; question: string; category: number; factRank: number; bm25Rank: number }> = [];

const KS = [3, 5, 10] as const;
const CATEGORIES: Array<{ name: string; ids: number[] }> = [
  { name: "1 multi-hop", ids: [1] },
  { name: "2 temporal", ids: [2] },
  { name: "3 open-domain", ids: [3] },
  { name: "4 single-hop", ids: [4] },
  { name: "1+4", ids: [1, 4] },
  { name: "1-4 all", ids: [1, 2, 3, 4] },
  { name: "5 adversarial", ids: [5] },
];
type Method = "facts" | "bm25_turns" | "recent_turns";
/** Items whose evidence turns produced at least one stored fact: the ceiling of facts hit@k. */
const coverage = new Map<string, { items: number; covered: number }>();
type Hits = Record<Method, Record<number, number>>;

interface Tally {
  items: number;
  hits: Hits;
}

function newTally(): Tally {
  const zero = () => ({ 3: 0, 5: 0, 10: 0 }) as Record<number, number>;
  return { items: 0, hits: { facts: zero(), bm25_turns: zero(), recent_turns: zero() } };
}

interface ConvStats {
  sampleId: string;
  turns: number;
  extracted: number;
  stored: number;
  extractMs: number;
}

function replay(conv: LocomoConversation, maxFacts: number): { slot: FactSlot; extracted: number; extractMs: number } {
  let slot = emptyFactSlot();
  let extracted = 0;
  let extractMs = 0;
  for (const [i, turn] of conv.turns.entries()) {
    const t0 = performance.now();
    const candidates = extractFactsHeuristic(`${turn.speaker}: ${turn.text}`, { speakerPrefix: true });
    const plan = planFactWrite(slot, candidates, { sourceMessageId: turn.diaId, turn: i + 1, origin: "heuristic", maxFacts });
    slot = mergeFactSlot(slot, { ...plan, cursor: turn.diaId, turn: i + 1 });
    extractMs += performance.now() - t0;
    extracted += candidates.length;
  }
  return { slot, extracted, extractMs };
}

function run(maxFacts: number): { tallies: Map<string, Tally>; stats: ConvStats[] } {
  const tallies = new Map(CATEGORIES.map((c) => [c.name, newTally()]));
  const stats: ConvStats[] = [];
  const conversations = loadLocomo(args.data);
  requireQuestions(conversations, args.data);
  for (const conv of conversations) {
    const { slot, extracted, extractMs } = replay(conv, maxFacts);
    stats.push({ sampleId: conv.sampleId, turns: conv.turns.length, extracted, stored: slot.facts.length, extractMs });
    const factIndex = createFactIndex(slot.facts);
    const turnIndex = new MiniSearch<{ id: string; text: string }>({
      fields: ["text"],
      tokenize,
      processTerm: (term) => term,
      searchOptions: { combineWith: "OR", prefix: false, fuzzy: false },
    });
    turnIndex.addAll(conv.turns.map((t) => ({ id: t.diaId, text: `${t.speaker}: ${t.text}` })));
    const recent = conv.turns.map((t) => t.diaId).reverse();
    const sources = new Set(slot.facts.map((f) => f.sourceMessageId));
    for (const item of conv.qa) {
      if (item.evidence.length === 0) continue;
      const evidence = new Set(item.evidence);
      if (maxFacts === DEFAULT_MAX_FACTS) {
        for (const cat of CATEGORIES.filter((c) => c.ids.includes(item.category))) {
          const c = coverage.get(cat.name) ?? { items: 0, covered: 0 };
          c.items += 1;
          if (item.evidence.some((id) => sources.has(id))) c.covered += 1;
          coverage.set(cat.name, c);
        }
      }
      const facts = factIndex.search(item.question, 10).map((r) => r.fact.sourceMessageId ?? "");
      const turns = turnIndex
        .search(item.question)
        .slice(0, 10)
        .map((r) => String(r.id));
      if (maxFacts === DEFAULT_MAX_FACTS) {
        const rank = (ids: string[]) => ids.findIndex((id) => evidence.has(id)) + 1;
        itemRows.push({
          sampleId: conv.sampleId,
          question: item.question,
          category: item.category,
          factRank: rank(facts),
          bm25Rank: rank(turns),
        });
      }
      for (const cat of CATEGORIES) {
        if (!cat.ids.includes(item.category)) continue;
        const tally = tallies.get(cat.name) as Tally;
        tally.items += 1;
        for (const k of KS) {
          if (facts.slice(0, k).some((id) => evidence.has(id))) tally.hits.facts[k] = (tally.hits.facts[k] ?? 0) + 1;
          if (turns.slice(0, k).some((id) => evidence.has(id))) tally.hits.bm25_turns[k] = (tally.hits.bm25_turns[k] ?? 0) + 1;
          if (recent.slice(0, k).some((id) => evidence.has(id))) tally.hits.recent_turns[k] = (tally.hits.recent_turns[k] ?? 0) + 1;
        }
      }
    }
  }
  return { tallies, stats };
}

const pct = (n: number, d: number) => (d === 0 ? "-" : `${((100 * n) / d).toFixed(1)}`);

function table(title: string, tallies: Map<string, Tally>): string {
  const lines = [
    `### ${title}`,
    "",
    "| category | items | facts hit@3 | hit@5 | hit@10 | BM25 turns hit@3 | hit@5 | hit@10 | recent turns hit@3 | hit@5 | hit@10 |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const [name, t] of tallies) {
    const cells = (["facts", "bm25_turns", "recent_turns"] as Method[]).flatMap((m) => KS.map((k) => pct(t.hits[m][k] ?? 0, t.items)));
    lines.push(`| ${name} | ${t.items} | ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

const started = performance.now();
const bounded = run(DEFAULT_MAX_FACTS);
const unbounded = run(100_000);
const dataLabel = args.data === LOCOMO_PATH ? "data/locomo/locomo-dev.json" : args.data;
if (args.json) {
  const tallyJson = (tallies: Map<string, Tally>) => Object.fromEntries([...tallies].map(([name, t]) => [name, t]));
  printJson({
    bench: "facts",
    data: dataLabel,
    maxFacts: DEFAULT_MAX_FACTS,
    bounded: { tallies: tallyJson(bounded.tallies), stats: bounded.stats },
    unbounded: { tallies: tallyJson(unbounded.tallies), stats: unbounded.stats },
    coverage: Object.fromEntries(coverage),
    ...(args.values.items === true ? { items: itemRows } : {}),
    seconds: (performance.now() - started) / 1000,
  });
  process.exit(0);
}
const out: string[] = [
  "# Fact recall on LoCoMo (heuristic extraction)",
  "",
  `Data: \`${dataLabel}\` (${bounded.stats.length} conversations; CC BY-NC 4.0, Maharana et al. 2024). Hit@k in %: a hit when one of the top-k results comes from a turn in the item's evidence. Items without resolvable evidence are skipped. Command: \`pnpm tsx bench/facts.ts\`.`,
  "",
  table(`Facts bounded at maxFacts = ${DEFAULT_MAX_FACTS} (the default)`, bounded.tallies),
  "",
  table("Facts unbounded (maxFacts = 100000)", unbounded.tallies),
  "",
  "### Coverage ceiling (default bound)",
  "",
  "Share of items (%) with at least one evidence turn that produced a stored fact: no ranking can make facts hit@k exceed it.",
  "",
  "| category | items | covered |",
  "|---|---:|---:|",
  ...CATEGORIES.map((cat) => coverage.get(cat.name) ?? { items: 0, covered: 0 }).map(
    (c, i) => `| ${CATEGORIES[i]?.name} | ${c.items} | ${pct(c.covered, c.items)} |`,
  ),
  "",
  "### Extraction",
  "",
  "| conversation | turns | candidates extracted | facts stored (default bound) | facts stored (unbounded) | extraction + upsert per turn (ms) |",
  "|---|---:|---:|---:|---:|---:|",
  ...bounded.stats.map((s, i) => {
    const u = unbounded.stats[i] as ConvStats;
    return `| ${s.sampleId} | ${s.turns} | ${s.extracted} | ${s.stored} | ${u.stored} | ${(s.extractMs / s.turns).toFixed(3)} |`;
  }),
  "",
  `Total run time ${((performance.now() - started) / 1000).toFixed(1)} s on this machine (Node ${process.version}).`,
];
const text = out.join("\n");
console.log(text);
const here = dirname(fileURLToPath(import.meta.url));
if (args.writesResults) writeFileSync(resolve(here, "results/facts.md"), `${text}\n`);
