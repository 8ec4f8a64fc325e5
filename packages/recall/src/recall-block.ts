import { sentenceSegments, type TextLanguage, tokenize } from "@threadwise/core";
import { type Fact, type FactIndex, factLine } from "@threadwise/fact-recall";
import type { MessageIndex, RecallEntry } from "./message-index.js";

/** Constant of reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009): 1 / (k + rank). */
export const RRF_K = 60;

/**
 * Weight of the fact ranking in the fusion (weighted reciprocal rank fusion). Facts restate some
 * messages in short (the rules cover about a third of them), so their ranking counts half of the
 * message ranking's: a fact comes before the messages when nothing else matches, or when its
 * message is also ranked. On the LoCoMo dev file (bench/recall.ts) weights 0.5 and 0.75 place the
 * same blocks; at 1, facts take the place of evidence messages on category 3 (40.6% vs 42.2%).
 */
export const FACT_WEIGHT = 0.5;

/**
 * Share of a matched question's rank it keeps when the other speaker's reply takes it (weighted
 * reciprocal rank fusion): BM25 ranks a question high because it shares the words of a later
 * question about the same thing (it asked it first), while the reply says the thing in other
 * words. So the reply is ranked where its question matched, and the question right behind it. In
 * the block the reply then comes with the question as a neighbour. A message takes the best of
 * its shares (its own rank, its question's), not their sum: summed, a reply to a question that
 * matched by a name alone (`반가워요 지훈 님! 운동 목표가 어떻게 되세요?`) went above the message
 * BM25 ranked first for every question naming that person. Session 54 (bench/README.md): on the
 * 12 Korean and English LoCoMo-format fixtures (586 items) hit@3 326 -> 384, hit@5 359 -> 410,
 * block hits 448 -> 453 (summed: 372, 410, 450; 0, the question dropped: 373, 408, 449). A
 * question that itself replies to the other speaker's question keeps its whole rank (session 58).
 */
export const QUESTION_WEIGHT = 0.5;

/**
 * A question: its text ends with `?` (full-width too), possibly followed by closing quotes,
 * brackets, dots, tildes, `^^` or laughter and crying marks (`?ㅋㅋ`, `?!`, `?)`, `?^^`).
 */
const QUESTION = /[?？][\s"'”’)\]~.!…^ㅎㅋㅠㅜ]*$/u;

/**
 * The reply to `entry`: the next indexed message of its thread when `entry` asks a question
 * ({@link QUESTION}) and that message is another speaker's (a user message's `name`, else its
 * role). None otherwise. Over several threads (`walk` set: user memory's index orders a user's
 * threads by when they were stored) the next message of `entry`'s own thread, never the next
 * entry of another thread stored between them.
 */
function replyTo(entry: RecallEntry, index: MessageIndex, walk: ThreadWalk | undefined): RecallEntry | undefined {
  if (!QUESTION.test(entry.text)) return undefined;
  const next = walk ? walk.nearest(entry, 1, 1)[0] : index.entry(entry.seq + 1);
  if (!next) return undefined;
  const speaker = (e: RecallEntry) => (e.role === "user" ? `user:${e.name ?? ""}` : "assistant");
  return speaker(next) === speaker(entry) ? undefined : next;
}

/**
 * Whether `entry` is itself the other speaker's reply to a question (the message before it in its
 * thread asks one and {@link replyTo} gives `entry`): a question that answers one (`Yes but not
 * Sunday morning, we go to church, so maybe Saturday?`, `좋아요 근데 일요일은 교회 가야 돼서 토요일
 * 어때요?`) says the thing asked, so it keeps its rank instead of handing it to the next line.
 */
function answersQuestion(entry: RecallEntry, index: MessageIndex, walk: ThreadWalk | undefined): boolean {
  const before = walk ? walk.nearest(entry, -1, 1)[0] : index.entry(entry.seq - 1);
  return before !== undefined && replyTo(before, index, walk)?.seq === entry.seq;
}

/** Steps a walk takes entry by entry before it lists each thread's entries (see {@link ThreadWalk}). */
const LINEAR_STEPS = 64;

/**
 * Steps through an index over several threads within one thread: the nearest entries of an
 * entry's own thread, others between them skipped. A few steps are taken one entry at a time (the
 * usual case: a thread's lines sit close together); past {@link LINEAR_STEPS} the walk lists every
 * thread's sequence numbers once (one pass over the index, kept for the walk's life) and answers by
 * binary search, so one ranking or one block costs at most one pass however far apart a thread's
 * lines are (a line alone in its thread among 10,000 others: a pass per neighbour before). The same
 * entries either way.
 */
class ThreadWalk {
  readonly #index: MessageIndex;
  readonly #threadKey: (entry: RecallEntry) => string;
  #seqs: Map<string, number[]> | undefined;

  constructor(index: MessageIndex, threadKey: (entry: RecallEntry) => string) {
    this.#index = index;
    this.#threadKey = threadKey;
  }

  /** The `count` nearest entries of `entry`'s thread in `direction` (-1 before, 1 after), nearest first. */
  nearest(entry: RecallEntry, direction: -1 | 1, count: number): RecallEntry[] {
    const found: RecallEntry[] = [];
    if (count <= 0) return found;
    const thread = this.#threadKey(entry);
    if (this.#seqs === undefined) {
      let seq = entry.seq + direction;
      for (let steps = 0; steps < LINEAR_STEPS && found.length < count; steps += 1, seq += direction) {
        const next = this.#index.entry(seq);
        if (!next) return found;
        if (this.#threadKey(next) === thread) found.push(next);
      }
      if (found.length === count) return found;
      this.#seqs = new Map();
      for (const e of this.#index.entries()) {
        const key = this.#threadKey(e);
        const list = this.#seqs.get(key);
        if (list) list.push(e.seq);
        else this.#seqs.set(key, [e.seq]);
      }
      found.length = 0;
    }
    const seqs = this.#seqs.get(thread) ?? [];
    // The position of entry.seq in its thread's ascending list (it is there: the entry is indexed).
    let lo = 0;
    let hi = seqs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((seqs[mid] as number) < entry.seq) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo + direction; i >= 0 && i < seqs.length && found.length < count; i += direction) {
      const next = this.#index.entry(seqs[i] as number);
      if (next) found.push(next);
    }
    return found;
  }
}

/**
 * The `count` nearest entries of `entry` in `direction` (-1 before, 1 after), by index order; the
 * d-th is `undefined` past the index's end. With `walk`, only entries of `entry`'s thread
 * count (others between them are skipped); without it, they are the entries at `seq ± d`.
 */
function nearest(
  index: MessageIndex,
  entry: RecallEntry,
  direction: -1 | 1,
  count: number,
  walk: ThreadWalk | undefined,
): Array<RecallEntry | undefined> {
  if (walk) return walk.nearest(entry, direction, count);
  const found: Array<RecallEntry | undefined> = [];
  for (let seq = entry.seq + direction; found.length < count; seq += direction) {
    const next = index.entry(seq);
    if (!next) break;
    found.push(next);
  }
  return found;
}

/** One recalled item: a message that left the view, or a fact (pointing at the message it came from). */
export type RecallItem =
  | { kind: "message"; entry: RecallEntry; score: number }
  | { kind: "fact"; fact: Fact; source: RecallEntry | undefined; score: number };

/** What {@link rankRecall} ranks. */
export interface RankInput {
  /** The thread's message index, synced. */
  messages: MessageIndex;
  /** The thread's fact index, synced; unset when facts are not used. */
  facts?: FactIndex;
  /** Terms of the newest user message (core `tokenize`). */
  terms: readonly string[];
  /**
   * The newest user message as written: the fact index reads it as a question (a compound
   * question's parts, the terms a question's form implies). Default: `terms` joined.
   */
  query?: string;
  /** `true` for the id of a message that is in the view: never recalled, nor its facts. */
  inView: (messageId: string) => boolean;
  /** `true` for a fact that must not be recalled (already placed by factRecall). */
  skipFact?: (fact: Fact) => boolean;
  /** Ids of messages ranked by another retriever (embeddings), best first; fused with BM25. */
  extraRanking?: readonly string[];
  /** How many results each ranking contributes (items). */
  depth: number;
  /**
   * The thread of a message, for an index over several threads (see `RenderOptions.threadOf`): a
   * question's reply is then the next message of its own thread. Default: one thread.
   */
  threadOf?: (messageId: string) => string | undefined;
}

/**
 * One ranked list across messages and facts (spec R35): BM25+ over the messages, BM25+ over the
 * facts, and optionally an embedding ranking of the messages, fused by reciprocal rank fusion
 * (score = sum over rankings of weight / ({@link RRF_K} + rank); the fact ranking's weight is
 * {@link FACT_WEIGHT}, the others' 1). A matched message that asks a question gives its BM25 rank
 * to the other speaker's reply right after it (in its own thread, with `threadOf`) and keeps {@link QUESTION_WEIGHT} of it (a reply in
 * the view takes nothing); when that message itself replies to a question it keeps its whole rank. Messages in the view, and facts taken from them, are left out. Best
 * first; ties keep BM25 order.
 */
export function rankRecall(input: RankInput): RecallItem[] {
  const scores = new Map<string, { item: RecallItem; score: number }>();
  const add = (key: string, rank: number, make: () => RecallItem, weight = 1) => {
    const entry = scores.get(key);
    const share = weight / (RRF_K + rank);
    if (entry) entry.score += share;
    else scores.set(key, { item: make(), score: share });
  };
  const skip = (entry: RecallEntry) => input.inView(entry.id);
  // The BM25 ranking, where a matched question gives its rank to the other speaker's reply and
  // keeps QUESTION_WEIGHT of it. A message takes its best share, never the sum of two: a reply
  // that also matches by itself ranks no higher than the better of the two ranks.
  const lexical = new Map<number, { item: RecallItem; share: number }>();
  const offer = (entry: RecallEntry, score: number, rank: number, weight: number) => {
    const share = weight / (RRF_K + rank);
    const held = lexical.get(entry.seq);
    if (!held) lexical.set(entry.seq, { item: { kind: "message", entry, score }, share });
    else if (share > held.share) held.share = share;
  };
  const threadOf = input.threadOf;
  const walk = threadOf ? new ThreadWalk(input.messages, (entry) => threadOf(entry.id) ?? "") : undefined;
  input.messages.search(input.terms, input.depth, skip).forEach(({ entry, score }, rank) => {
    const reply = replyTo(entry, input.messages, walk);
    if (reply && !skip(reply) && answersQuestion(entry, input.messages, walk)) {
      // A reply that asks back says a thing itself: it keeps its rank, and its reply shares it.
      offer(entry, score, rank + 1, 1);
      offer(reply, 0, rank + 1, 1);
    } else if (reply && !skip(reply)) {
      offer(reply, 0, rank + 1, 1);
      offer(entry, score, rank + 1, QUESTION_WEIGHT);
    } else offer(entry, score, rank + 1, 1);
  });
  for (const [seq, { item, share }] of lexical) scores.set(`m:${seq}`, { item, score: share });
  if (input.extraRanking) {
    let rank = 0;
    for (const id of input.extraRanking) {
      const entry = input.messages.byMessageId(id);
      if (!entry || skip(entry)) continue;
      rank += 1;
      add(`m:${entry.seq}`, rank, () => ({ kind: "message", entry, score: 0 }));
      if (rank >= input.depth) break;
    }
  }
  if (input.facts && input.facts.size > 0) {
    let rank = 0;
    for (const { fact, score } of input.facts.search(input.query ?? input.terms.join(" "), input.depth * 2)) {
      if (fact.sourceMessageId !== null && input.inView(fact.sourceMessageId)) continue;
      if (input.skipFact?.(fact)) continue;
      rank += 1;
      const source = fact.sourceMessageId === null ? undefined : input.messages.byMessageId(fact.sourceMessageId);
      add(`f:${fact.key}`, rank, () => ({ kind: "fact", fact, source, score }), FACT_WEIGHT);
      if (rank >= input.depth) break;
    }
  }
  return [...scores.values()].sort((a, b) => b.score - a.score).map(({ item, score }) => ({ ...item, score }));
}

/** Options of {@link renderRecall}. */
export interface RenderOptions {
  /** Most tokens of the whole block, its `[label]` line included (tokens). */
  maxTokens: number;
  /** Messages shown on each side of a recalled message, when the budget allows (messages). */
  neighbours: number;
  /** Most tokens of one recalled message's line; longer ones are cut to their best part (tokens). */
  maxMessageTokens: number;
  /** Most tokens of one neighbour's line (tokens). */
  maxNeighbourTokens: number;
  /** Most items (messages or facts) placed. */
  maxItems: number;
  /** Heading of the block. */
  label: string;
  /** Token counter of the block's text. */
  countText: (text: string) => number;
  /** `true` for a message in the view (a neighbour in the view is not repeated). */
  inView: (messageId: string) => boolean;
  /** Terms of the newest user message: pick the best part of a long message. */
  terms: readonly string[];
  /**
   * `false`: lines carry no `#<position>` and a fact names its source by timestamp only (user
   * memory: its positions number the user's messages across threads, not the asking thread's,
   * where a model would look for them). @default true
   */
  positions?: boolean;
  /**
   * The thread a message was said in (by message id), for an index that holds several threads'
   * messages in one order (user memory: a user's threads, by when each was stored, so two threads'
   * messages can sit side by side): a recalled message's neighbours are the nearest messages of
   * its own thread on each side (other threads' entries between them skipped), its thread's lines
   * are placed together, and a {@link THREAD_BREAK} line separates two threads' lines (the first
   * line after it says when it was said). Unset: the index is one thread (recall's block).
   */
  threadOf?: (messageId: string) => string | undefined;
  /** The speakers' and fact lines' words, in the label's language. @default RECALL_WORDS.en */
  words?: RecallWords;
}

/** The line between two threads' lines in a block over several threads (see `RenderOptions.threadOf`). */
export const THREAD_BREAK = "---";

/** The rendered block and what it holds. */
export interface RenderedRecall {
  /** The block's text (without the label); empty when nothing fits or nothing was found. */
  text: string;
  /** Tokens of `[label]\ntext`; 0 when empty. */
  tokens: number;
  /** Ids of the messages in the block (recalled ones and their neighbours), in the block's order (thread order; by thread with `threadOf`). */
  messageIds: string[];
  /** Keys of the facts in the block. */
  factKeys: string[];
  /** Items placed, best first. */
  items: RecallItem[];
}

/** The words of a recall block's lines besides the messages' own: the speakers and a fact line's `fact` and `from`. */
export interface RecallWords {
  /** A user message's speaker, when it has no `name`. */
  user: string;
  /** An AI message's speaker. */
  assistant: string;
  /** A fact line's lead word (`- fact: ...`). */
  fact: string;
  /** A fact line's pointer to the message it came from (`- fact (from #3): ...`). */
  from: string;
}

/**
 * {@link RecallWords} in each prompt language: recall and userMemory pick them with the block's
 * label (`promptLanguage`), so a Korean prompt does not read `#3 user:` under `[이 대화의 앞부분에서 찾은 내용]`.
 */
export const RECALL_WORDS: Readonly<Record<TextLanguage, RecallWords>> = {
  en: { user: "user", assistant: "assistant", fact: "fact", from: "from" },
  ko: { user: "사용자", assistant: "어시스턴트", fact: "사실", from: "출처" },
};

/** A user message's `name` (a speaker in a multi-party thread), else the role's word. AI messages carry the agent's name, so they are the assistant. */
function speakerOf(entry: RecallEntry, words: RecallWords): string {
  return entry.role === "user" ? (entry.name ?? words.user) : words.assistant;
}

/** A message's text measured once: its tokens, and its sentences with their tokens and terms. */
interface Measured {
  /** The counter it was measured with. */
  countText: (text: string) => number;
  tokens: number;
  sentences?: Array<{ text: string; tokens: number; terms: Set<string> }>;
}
// Keyed by entry object (its fields are readonly: an edited message gets a new entry), dropped with
// the entry when the index lets it go; reused only with the counter it was measured with.
const measures = new WeakMap<RecallEntry, Measured>();

function measure(entry: RecallEntry, countText: (text: string) => number): Measured {
  let m = measures.get(entry);
  if (m?.countText !== countText) {
    m = { countText, tokens: entry.tokens ?? countText(entry.text) };
    measures.set(entry, m);
  }
  return m;
}

/**
 * The part of a message that fits in `maxTokens`, with its estimated tokens (from per-sentence
 * counts made once per message; the block's final text is counted exactly): whole when it fits; else the sentence sharing most terms with the query, widened
 * by the following and preceding sentences while it fits, marked with `…` where text was left
 * out; a single sentence that does not fit is cut at a word.
 */
export function excerpt(
  entry: RecallEntry,
  terms: ReadonlySet<string>,
  maxTokens: number,
  countText: (text: string) => number,
): { text: string; tokens: number } {
  const m = measure(entry, countText);
  if (m.tokens <= maxTokens) return { text: entry.text, tokens: m.tokens };
  m.sentences ??= sentenceSegments(entry.text)
    .map((s) => s.trim())
    .filter((t) => t !== "")
    .map((t) => ({ text: t, tokens: countText(t), terms: new Set(tokenize(t)) }));
  const parts = m.sentences;
  if (parts.length === 0) return { text: entry.text, tokens: m.tokens };
  let best = 0;
  let bestScore = -1;
  parts.forEach((part, i) => {
    let score = 0;
    for (const t of part.terms) if (terms.has(t)) score += 1;
    if (score > bestScore) {
      best = i;
      bestScore = score;
    }
  });
  let from = best;
  let to = best + 1;
  // Each `…` marker is about one token; a space between sentences is part of the next token.
  let used = (parts[best] as { tokens: number }).tokens + 2;
  for (let grew = true; grew; ) {
    grew = false;
    const next = parts[to];
    if (next && used + next.tokens <= maxTokens) {
      used += next.tokens;
      to += 1;
      grew = true;
    }
    const previous = parts[from - 1];
    if (previous && used + previous.tokens <= maxTokens) {
      used += previous.tokens;
      from -= 1;
      grew = true;
    }
  }
  const lead = from > 0 ? "…" : "";
  const tail = to < parts.length ? "…" : "";
  if (used <= maxTokens) {
    const text = parts
      .slice(from, to)
      .map((p) => p.text)
      .join(" ");
    return { text: `${lead}${text}${tail}`, tokens: used };
  }
  // One sentence over the cap: keep whole words from its start, in proportion to its tokens.
  const sentence = parts[best] as { text: string; tokens: number };
  const words = sentence.text.split(/\s+/);
  const keep = Math.max(1, Math.floor((words.length * (maxTokens - 2)) / Math.max(1, sentence.tokens)));
  return { text: `${lead}${words.slice(0, keep).join(" ")}…`, tokens: maxTokens };
}

function messageLine(entry: RecallEntry, body: string, when: string | undefined, positions: boolean, words: RecallWords): string {
  return `${positions ? `#${entry.position} ` : ""}${speakerOf(entry, words)}${when ? ` (${when})` : ""}: ${body}`;
}

/**
 * A fact's line in the block: fact-recall's {@link factLine} (ended, earlier values), with where it
 * was said (`from #<position>, <timestamp>`; without positions, the timestamp alone).
 */
function recallFactLine(fact: Fact, source: RecallEntry | undefined, positions: boolean, words: RecallWords): string {
  if (!source) return `- ${words.fact}: ${factLine(fact)}`;
  if (!positions) return `- ${words.fact}${source.timestamp ? ` (${source.timestamp})` : ""}: ${factLine(fact)}`;
  return `- ${words.fact} (${words.from} #${source.position}${source.timestamp ? `, ${source.timestamp}` : ""}): ${factLine(fact)}`;
}

/**
 * Renders ranked items as the recall block, best first until the budget is spent (spec R35):
 * a fact is one line pointing at the message it came from (left out when that message is placed
 * whole too; kept when the message is shown only in part, which may have cut the fact's sentence); a message is one line `#<position> <speaker> (<timestamp>): <text>` (without `#<position>` when `options.positions` is `false`) with up to
 * `neighbours` messages on each side when they fit (else the message alone, else its best part
 * when at least 16 tokens are left). Facts come first, then messages in thread order, so a
 * recalled exchange reads as it happened; a timestamp is written when it differs from the line
 * before. With `options.threadOf` (an index over several threads) neighbours come from the
 * message's own thread only and each thread's lines stand together, in the order of their first
 * message, separated by {@link THREAD_BREAK}. Line costs are estimated; before a ranked line is
 * left out for want of budget the block so far is counted exactly, and what the estimate overstated
 * is spent on ranked lines (never on a unit's neighbours). The whole block, label included, stays
 * within `maxTokens` (checked on the final text).
 */
export function renderRecall(items: readonly RecallItem[], index: MessageIndex, options: RenderOptions): RenderedRecall {
  const terms = new Set(options.terms);
  const header = `[${options.label}]\n`;
  const count = options.countText;
  const positions = options.positions !== false;
  const words = options.words ?? RECALL_WORDS.en;
  // Line cost is estimated as head + body tokens + 1 for the newline (the final text is counted
  // exactly below); the position `#<n> ` is about two tokens (o200k and cl100k keep up to three
  // digits in one). A timestamp is paid once per distinct value: lines in thread order repeat it
  // only where it changes. Without positions the estimate stays the same (the same lines are
  // placed; the block is shorter by the numbers).
  const line = (entry: RecallEntry, cap: number): { entry: RecallEntry; body: string; tokens: number } => {
    const headTokens = 2 + count(`${speakerOf(entry, words)}: `);
    const body = excerpt(entry, terms, Math.max(8, cap - headTokens), count);
    return { entry, body: body.text, tokens: headTokens + body.tokens + 1 };
  };
  const times = new Set<string>();
  const timeCost = (lines: ReadonlyArray<{ entry: RecallEntry }>) => {
    const fresh = new Set<string>();
    for (const { entry } of lines) if (entry.timestamp && !times.has(entry.timestamp)) fresh.add(entry.timestamp);
    let sum = 0;
    for (const t of fresh) sum += count(` (${t})`);
    return sum;
  };
  const threadOf = options.threadOf;
  const threadKey = (entry: RecallEntry) => threadOf?.(entry.id) ?? "";
  const walk = threadOf ? new ThreadWalk(index, threadKey) : undefined;
  // A unit that opens a thread's lines costs the break before them (estimated for every new thread).
  const breakCost = threadOf ? count(`\n${THREAD_BREAK}`) : 0;
  const threadsPlaced = new Set<string>();
  let used = count(header);
  const placed = new Map<number, { entry: RecallEntry; body: string }>();
  // Placement units in rank order (a fact, or a message with its neighbours), to undo the last.
  const units: Array<{ item: RecallItem; seqs: number[]; fact?: { fact: Fact; line: string } }> = [];
  const budgetLeft = () => options.maxTokens - used;
  const wholeIds = () => new Set([...placed.values()].filter((p) => p.body === p.entry.text).map((p) => p.entry.id));
  let placedIds = new Set<string>();
  const build = () => {
    // Facts whose source message is placed whole say the same thing twice: left out. A message cut
    // to an excerpt may have lost the fact's sentence (a neighbour's line keeps its best sentence
    // only), so its facts stay.
    const factLines = units
      .filter((u) => u.fact && !(u.fact.fact.sourceMessageId && placedIds.has(u.fact.fact.sourceMessageId)))
      .map((u) => (u.fact as { line: string }).line);
    const lines: string[] = [];
    let previous: string | undefined;
    let thread: string | undefined;
    for (const seq of blockOrder()) {
      const { entry, body } = placed.get(seq) as { entry: RecallEntry; body: string };
      if (threadOf) {
        const key = threadKey(entry);
        if (thread !== undefined && key !== thread) {
          lines.push(THREAD_BREAK);
          previous = undefined;
        }
        thread = key;
      }
      lines.push(messageLine(entry, body, entry.timestamp !== previous ? entry.timestamp : undefined, positions, words));
      previous = entry.timestamp;
    }
    return [...factLines, ...lines].join("\n");
  };
  // Placed messages in index order; with `threadOf`, each thread's together, threads in the order of their first placed message.
  const blockOrder = () => {
    const seqs = [...placed.keys()].sort((a, b) => a - b);
    if (!threadOf) return seqs;
    const first = new Map<string, number>();
    for (const seq of seqs) {
      const key = threadKey((placed.get(seq) as { entry: RecallEntry }).entry);
      if (!first.has(key)) first.set(key, seq);
    }
    const rank = (seq: number) => first.get(threadKey((placed.get(seq) as { entry: RecallEntry }).entry)) as number;
    return seqs.sort((a, b) => rank(a) - rank(b) || a - b);
  };
  // Line costs are estimated piece by piece and run above the joined text's exact count (a block
  // estimated at 298 tokens counted 258 on english-heldout12: a separately counted `Gemma: ` pays
  // for a space the joined text merges into the next word). Before a ranked line is given up for
  // want of budget, the block so far is counted exactly and the budget left taken from that count.
  let countedUnits = 0;
  const recount = () => {
    if (units.length === countedUnits) return false;
    countedUnits = units.length;
    placedIds = wholeIds();
    const exact = count(header + build());
    if (exact >= used) return false;
    used = exact;
    return true;
  };
  const fits = (cost: number, exact: boolean) => cost <= budgetLeft() || (exact && recount() && cost <= budgetLeft());
  // `exact`: whether the slack of the estimate may be spent on these lines. A ranked line alone (or
  // its excerpt) may; a unit's neighbours may not, so the slack goes to the next ranked line rather
  // than to short lines around one already placed (`Ok.`, `Yes.`).
  const place = (item: RecallItem, lines: Array<{ entry: RecallEntry; body: string; tokens: number }>, exact: boolean) => {
    const opens = threadOf && threadsPlaced.size > 0 && !threadsPlaced.has(threadKey(lines[0]?.entry as RecallEntry)) ? breakCost : 0;
    const cost = lines.reduce((sum, l) => sum + l.tokens, 0) + timeCost(lines) + opens;
    if (!fits(cost, exact)) return false;
    used += cost;
    for (const l of lines) {
      placed.set(l.entry.seq, l);
      if (l.entry.timestamp) times.add(l.entry.timestamp);
      if (threadOf) threadsPlaced.add(threadKey(l.entry));
    }
    units.push({ item, seqs: lines.map((l) => l.entry.seq) });
    return true;
  };

  for (const item of items) {
    if (units.length >= options.maxItems || !fits(8, true)) break;
    if (item.kind === "fact") {
      const shown = item.source ? placed.get(item.source.seq) : undefined;
      if (shown && shown.body === shown.entry.text) continue;
      const text = recallFactLine(item.fact, item.source, positions, words);
      const c = count(text) + 1;
      if (!fits(c, true)) continue;
      used += c;
      units.push({ item, seqs: [], fact: { fact: item.fact, line: text } });
      continue;
    }
    const { entry } = item;
    if (placed.has(entry.seq)) continue;
    const core = line(entry, options.maxMessageTokens);
    const around: Array<{ entry: RecallEntry; body: string; tokens: number }> = [];
    const before = nearest(index, entry, -1, options.neighbours, walk);
    const after = nearest(index, entry, 1, options.neighbours, walk);
    for (let d = 0; d < options.neighbours; d += 1) {
      for (const n of [before[d], after[d]]) {
        if (!n || placed.has(n.seq) || options.inView(n.id)) continue;
        around.push(line(n, options.maxNeighbourTokens));
      }
    }
    if (place(item, [core, ...around], false) || place(item, [core], true)) continue;
    if (fits(16, true)) place(item, [line(entry, budgetLeft() - 2 - timeCost([core]))], true);
  }

  placedIds = wholeIds();
  let text = build();
  // Estimated line costs do not add up exactly to the joined text's: undo the last units until it fits.
  let tokens = text === "" ? 0 : count(header + text);
  while (text !== "" && tokens > options.maxTokens) {
    const unit = units.pop();
    if (!unit) break;
    for (const seq of unit.seqs) placed.delete(seq);
    placedIds = wholeIds();
    text = build();
    tokens = text === "" ? 0 : count(header + text);
  }
  const messageIds = blockOrder().map((seq) => (placed.get(seq) as { entry: RecallEntry }).entry.id);
  const factUnits = units.filter((u) => u.fact && !(u.fact.fact.sourceMessageId && placedIds.has(u.fact.fact.sourceMessageId)));
  const factKeys = new Set(factUnits.map((u) => (u.fact as { fact: Fact }).fact.key));
  return {
    text,
    tokens,
    messageIds,
    factKeys: [...factKeys],
    items: units.filter((u) => !u.fact || factKeys.has(u.fact.fact.key)).map((u) => u.item),
  };
}
