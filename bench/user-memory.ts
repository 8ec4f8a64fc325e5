/**
 * User memory across threads on LoCoMo-format conversations (issue 26).
 *
 * Each conversation is one user; each of its sessions is a thread of that user, committed into
 * `@threadwise/user-memory` (InMemoryStore) as the middleware commits a run: every turn a user
 * message with `name` = the speaker, `id` = the turn id and its session's date line as timestamp
 * (one commit per session, the turns in order). Then every QA item with resolvable evidence is
 * asked in a new thread of the same user, and three methods place what they find in a block of at
 * most `--budget` tokens (300, o200k_base, label line included):
 *
 * - `user_memory`: `UserMemoryEngine.recall` with the middleware's defaults (the user's messages,
 *   digests and facts from other threads, ranked as recall ranks).
 * - `bm25_earlier_sessions`: BM25+ over all earlier sessions' raw turns (`Speaker: text`, core's
 *   tokenizer), whole turns in rank order while they fit (bench/recall.ts's `bm25_turns`).
 * - `none`: no block (what a new thread knows without user memory).
 *
 * A block hit is an evidence turn inside what is placed (a recalled message, a neighbour shown
 * with it, or the source of a placed fact). Layout as bench/recall.ts: `categories[].methods.<name>.blockHit`.
 * Cost (`--cost-items`, default 1000): one user with that many items (the data file's turns
 * committed session by session; fewer when the file holds fewer, see `cost.itemsPerUser`), then `recall` per call, cold (first call of a fresh engine) and warm
 * (median of `--cost-calls` calls with distinct questions after `--cost-warmup` (100) untimed
 * ones), reading the items alone, and `commit` of one more turn; CPU clock, InMemoryStore (no network).
 *
 * `--items`: the JSON also lists every item with each method's block hit and `user_memory`'s placed
 * turns (to read which items move between two builds).
 *
 * Run: pnpm tsx bench/user-memory.ts [--data <file>] [--samples dev|heldout|<id,...>] [--json] [--items] [--budget 300]
 *      [--cost-items 1000] [--cost-calls 50] [--cost-warmup 100] [--no-cost]
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { InMemoryStore } from "@langchain/langgraph";
import { tokenize } from "@threadwise/core";
import { messageItemKey, resolveUserMemoryOptions, type TurnMessage, UserMemoryEngine, type UserScope } from "@threadwise/user-memory";
import { benchArgs, printJson } from "./support/cli.js";
import { LOCOMO_PATH, type LocomoConversation, loadLocomo, requireDateLines, requireQuestions, selectSamples } from "./support/locomo.js";
import { turnIndex, turnLine, turnPacker } from "./support/turn-block.js";

const cli = benchArgs(LOCOMO_PATH, {
  budget: { type: "string", default: "300" },
  "cost-items": { type: "string", default: "1000" },
  "cost-calls": { type: "string", default: "50" },
  "cost-warmup": { type: "string", default: "100" },
  "no-cost": { type: "boolean", default: false },
  items: { type: "boolean", default: false },
  samples: { type: "string" },
});
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dataPath = cli.data;
const json = cli.json;
const budget = Number(cli.values.budget);
const costItems = Number(cli.values["cost-items"]);
const costCalls = Number(cli.values["cost-calls"]);
const costWarmup = Number(cli.values["cost-warmup"]);
const samples = cli.values.samples;
const listItems = cli.values.items === true;
const itemRows: Array<{
  sampleId: string;
  category: number;
  question: string;
  evidence: string[];
  blockHit: Record<string, boolean>;
  userMemoryBlock: string[];
}> = [];

const METHODS = ["user_memory", "bm25_earlier_sessions", "none"] as const;
type Method = (typeof METHODS)[number];
const CATEGORY_NAMES: Record<number, string> = { 1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial" };

const engineOf = () => new UserMemoryEngine(resolveUserMemoryOptions({ maxTokens: budget, logger: false }, {}));
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : (s[Math.floor(s.length / 2)] as number);
};
const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

/** The sessions of a conversation as committed turns, in order (one commit per session). */
function sessionsOf(conv: LocomoConversation): Array<{ threadId: string; messages: TurnMessage[] }> {
  const bySession = new Map<number, TurnMessage[]>();
  for (const turn of conv.turns) {
    const list = bySession.get(turn.session) ?? [];
    list.push({ id: turn.diaId, text: turn.text, name: turn.speaker, at: turn.dateTime });
    bySession.set(turn.session, list);
  }
  return [...bySession]
    .sort(([a], [b]) => a - b)
    .map(([session, messages]) => ({ threadId: `${conv.sampleId}/session-${session}`, messages }));
}

/** Commits every session of `conv` for `scope`; returns item key -> dia id of the message items. */
async function commitConversation(
  engine: UserMemoryEngine,
  store: InMemoryStore,
  scope: UserScope,
  conv: LocomoConversation,
  clock: { t: number },
) {
  const diaOf = new Map<string, string>();
  for (const session of sessionsOf(conv)) {
    for (const m of session.messages) diaOf.set(messageItemKey(session.threadId, m.id), m.id);
    clock.t += 60_000;
    await engine.commit(store, scope, { threadId: session.threadId, messages: session.messages, now: new Date(clock.t).toISOString() });
  }
  return diaOf;
}

interface Tally {
  items: number;
  block: number;
  tokens: number;
}
const tallies = new Map<string, Record<Method, Tally>>();
const tallyOf = (group: string) => {
  let t = tallies.get(group);
  if (!t) {
    t = Object.fromEntries(METHODS.map((m) => [m, { items: 0, block: 0, tokens: 0 }])) as Record<Method, Tally>;
    tallies.set(group, t);
  }
  return t;
};
const byConversation = new Map<string, { items: number } & Record<Method, number>>();

const loaded = loadLocomo(dataPath);
requireDateLines(loaded, dataPath);
const conversations = selectSamples(loaded, samples);
requireQuestions(conversations, dataPath);
const engine = engineOf();
const pack = turnPacker(budget, engine.countText);
const clock = { t: Date.UTC(2026, 0, 1) };
let skipped = 0;
let storedItems = 0;
for (const conv of conversations) {
  const store = new InMemoryStore();
  const scope: UserScope = { tenantId: "bench", userId: conv.sampleId };
  const diaOf = await commitConversation(engine, store, scope, conv, clock);
  storedItems += (await engine.read(store, scope)).length;
  const bm25 = turnIndex(conv.turns, tokenize);
  const lineOf = new Map(conv.turns.map((t) => [t.diaId, turnLine(t)]));
  for (const item of conv.qa) {
    if (item.evidence.length === 0) {
      skipped += 1;
      continue;
    }
    const evidence = new Set(item.evidence);
    const hit = (ids: readonly string[]) => ids.some((id) => evidence.has(id));
    const recalled = await engine.recall(store, scope, { text: item.question, threadId: `${conv.sampleId}/question` });
    const placedUser = [
      ...recalled.messageIds.map((key) => diaOf.get(key) ?? ""),
      ...recalled.items.flatMap((it) => (it.kind === "fact" && it.fact.sourceMessageId ? [diaOf.get(it.fact.sourceMessageId) ?? ""] : [])),
    ];
    const hits = bm25
      .search(item.question)
      .slice(0, 30)
      .map((r) => String(r.id));
    const bm25Block = pack(
      hits.map((id) => ({ id, text: lineOf.get(id) as string })),
      "Earlier turns",
    );
    const results: Record<Method, { placed: string[]; tokens: number }> = {
      user_memory: { placed: placedUser, tokens: recalled.tokens },
      bm25_earlier_sessions: { placed: bm25Block.ids, tokens: bm25Block.tokens },
      none: { placed: [], tokens: 0 },
    };
    if (listItems) {
      itemRows.push({
        sampleId: conv.sampleId,
        category: item.category,
        question: item.question,
        evidence: item.evidence,
        blockHit: Object.fromEntries(METHODS.map((m) => [m, hit(results[m].placed)])),
        userMemoryBlock: placedUser,
      });
    }
    if (item.category <= 4) {
      let c = byConversation.get(conv.sampleId);
      if (!c) {
        c = { items: 0, ...(Object.fromEntries(METHODS.map((m) => [m, 0])) as Record<Method, number>) };
        byConversation.set(conv.sampleId, c);
      }
      c.items += 1;
      for (const method of METHODS) if (hit(results[method].placed)) c[method] += 1;
    }
    for (const group of [`${item.category}`, item.category <= 4 ? "1-4" : "", "all"]) {
      if (group === "") continue;
      const t = tallyOf(group);
      for (const method of METHODS) {
        t[method].items += 1;
        if (hit(results[method].placed)) t[method].block += 1;
        t[method].tokens += results[method].tokens;
      }
    }
  }
}

/**
 * Per-call cost with `costItems` items for one user: the data file's turns committed session by
 * session, conversation after conversation, until there are that many (fewer when the file holds
 * fewer; `itemsPerUser` says how many).
 */
async function measureCost() {
  const all = loadLocomo(dataPath);
  const store = new InMemoryStore();
  const scope: UserScope = { tenantId: "bench", userId: "cost" };
  const fill = engineOf();
  const questions: string[] = [];
  const costClock = { t: Date.UTC(2026, 0, 1) };
  outer: for (const conv of all) {
    questions.push(...conv.qa.map((q) => q.question));
    for (const session of sessionsOf(conv)) {
      const stored = (await fill.read(store, scope)).length;
      if (stored >= costItems) break outer;
      costClock.t += 60_000;
      await fill.commit(store, scope, {
        threadId: session.threadId,
        messages: session.messages.slice(0, Math.max(1, costItems - stored)),
        now: new Date(costClock.t).toISOString(),
      });
    }
  }
  const items = (await fill.read(store, scope)).length;
  const fresh = engineOf();
  let t0 = cpuMs();
  await fresh.recall(store, scope, { text: questions[0] as string, threadId: "cost/question" });
  const coldMs = cpuMs() - t0;
  // Warm: the process has answered `costWarmup` calls before (JIT compiled, caches filled), as a
  // long-running server has.
  for (const question of questions.slice(1, 1 + costWarmup))
    await fresh.recall(store, scope, { text: question, threadId: "cost/question" });
  const warm: number[] = [];
  for (const question of questions.slice(1 + costWarmup, 1 + costWarmup + costCalls)) {
    t0 = cpuMs();
    await fresh.recall(store, scope, { text: question, threadId: "cost/question" });
    warm.push(cpuMs() - t0);
  }
  const reads: number[] = [];
  for (let i = 0; i < costCalls; i += 1) {
    t0 = cpuMs();
    await fresh.read(store, scope);
    reads.push(cpuMs() - t0);
  }
  const commits: number[] = [];
  for (let i = 0; i < Math.min(costCalls, 20); i += 1) {
    costClock.t += 60_000;
    t0 = cpuMs();
    await fresh.commit(store, scope, {
      threadId: "cost/new-thread",
      messages: [{ id: `extra-${i}`, text: `I moved to a new flat in Busan, number ${i}.` }],
      now: new Date(costClock.t).toISOString(),
    });
    commits.push(cpuMs() - t0);
  }
  return {
    itemsPerUser: items,
    recallMsCold: round(coldMs),
    recallMsWarm: round(median(warm)),
    readMsWarm: round(median(reads)),
    commitMsWarm: round(median(commits)),
    calls: warm.length,
    warmupCalls: costWarmup,
    store: "InMemoryStore",
    clock: "CPU (process.cpuUsage), median",
    node: process.version,
  };
}

const pct = (n: number, d: number) => (d === 0 ? 0 : Math.round((1000 * n) / d) / 10);
const groups = ["1", "2", "3", "4", "5", "1-4", "all"].filter((g) => tallies.has(g));
const table = groups.map((group) => {
  const t = tallies.get(group) as Record<Method, Tally>;
  return {
    category: group,
    name: CATEGORY_NAMES[Number(group)] ?? group,
    items: t.user_memory.items,
    methods: Object.fromEntries(
      METHODS.map((m) => [
        m,
        { blockHit: pct(t[m].block, t[m].items), meanBlockTokens: t[m].items === 0 ? 0 : Math.round(t[m].tokens / t[m].items) },
      ]),
    ),
  };
});
const cost = cli.values["no-cost"] === true ? null : await measureCost();
const result = {
  data: dataPath.startsWith(root) ? dataPath.slice(root.length + 1) : dataPath,
  samples: samples ?? "all",
  budgetTokens: budget,
  conversations: conversations.length,
  meanItemsPerUser: conversations.length === 0 ? 0 : Math.round(storedItems / conversations.length),
  itemsSkippedWithoutEvidence: skipped,
  byConversation: [...byConversation].map(([sampleId, c]) => ({
    sampleId,
    items: c.items,
    blockHit: Object.fromEntries(METHODS.map((m) => [m, pct(c[m], c.items)])),
    userMemoryMinusBm25: round(pct(c.user_memory, c.items) - pct(c.bm25_earlier_sessions, c.items), 1),
  })),
  categories: table,
  cost,
  ...(listItems ? { items: itemRows } : {}),
};

if (json) printJson(result);
else {
  const lines = [
    `# User memory on ${result.data}${samples ? ` [${samples}]` : ""} (${result.conversations} users, one thread per session, block of ${budget} tokens)`,
    "",
    "Block hit in % (an evidence turn inside the placed block); mean tokens of the block.",
    "",
    `| category | items | ${METHODS.map((m) => `${m} block / tokens`).join(" | ")} |`,
    `|---|---:|${METHODS.map(() => "---:").join("|")}|`,
    ...table.map(
      (row) =>
        `| ${row.category} ${row.name} | ${row.items} | ${METHODS.map((m) => {
          const x = row.methods[m] as { blockHit: number; meanBlockTokens: number };
          return `**${x.blockHit}** / ${x.meanBlockTokens}`;
        }).join(" | ")} |`,
    ),
    "",
    ...result.byConversation.map(
      (c) =>
        `- ${c.sampleId} (${c.items} items, 1-4): ${c.blockHit.user_memory} vs ${c.blockHit.bm25_earlier_sessions} (${c.userMemoryMinusBm25 >= 0 ? "+" : ""}${c.userMemoryMinusBm25})`,
    ),
    "",
    cost
      ? `Cost with ${cost.itemsPerUser} items per user (${cost.store}, CPU): recall ${cost.recallMsCold} ms cold, ${cost.recallMsWarm} ms warm per call (of which reading and decoding the items ${cost.readMsWarm} ms); commit of one turn ${cost.commitMsWarm} ms. Node ${process.version}.`
      : "",
  ];
  console.log(lines.join("\n"));
}
