import {
  analysisText,
  CROSS_SCRIPT_WEIGHT,
  NEAR_SPELLING_WEIGHT,
  QueryWidening,
  RELATED_WORD_WEIGHT,
  SizedLru,
  tokenize,
} from "@threadwise/core";
import MiniSearch from "minisearch";
import { type Fact, factLine } from "./fact-store.js";

/**
 * Words added to a fact's index entry by attribute, in English and Korean, so that a question
 * names the kind of fact ("what's my job?", "직업이 뭐였죠?") and finds it without repeating the
 * value ("nurse").
 */
export const ATTRIBUTE_KEYWORDS: Readonly<Record<string, string>> = {
  name: "name called 이름",
  age: "age old years birthday 나이 연령",
  residence: "live home city residence moved address where 사는 곳 산다 거주 집 이사 동네",
  hometown: "from hometown home country born grew origin 고향 출신",
  work: "job work career occupation employer company profession 직업 직장 회사 일",
  study: "study major school university college 전공 공부 학교",
  school: "school university college student study 학교 대학 학생",
  marital: "married relationship status single spouse 결혼 관계",
  family: "family relatives kids children spouse 가족",
  pet: "pet pets animal 반려동물 애완동물",
  likes: "like favorite enjoy interest 좋아하는 관심",
  favorite: "favorite like 좋아하는",
  dislikes: "dislike hate avoid 싫어하는",
  plan: "plan future upcoming schedule 계획 예정 일정",
  event: "did event activity experience 경험 활동",
  hobby: "hobby activity pastime 취미 활동",
  belonging: "own belongings bought 소유 물건",
  health: "health medical allergy condition diet 건강 알레르기 식단",
  constraint: "diet cannot restriction avoid 제약 식단",
};

/** A recalled fact with its BM25+ score (higher is more relevant). */
export interface RankedFact {
  fact: Fact;
  score: number;
}

/** A full-text index over a thread's facts, kept in step with the fact slot. */
export interface FactIndex {
  /**
   * Brings the index in line with `facts` (the slot's current list): facts whose key is new are
   * added, facts whose indexed text, subject or attribute changed are replaced, facts whose key is
   * gone are removed; the others are only re-pointed at the new objects (counters change on every
   * use). Costs one key lookup and three string comparisons per fact, and tokenization only for
   * added, changed or removed facts. Afterwards the index ranks exactly as one built from `facts`
   * would (spec R37): the same facts in the same order with bit-identical scores, whatever list
   * was synced before (edits, removals, reorders, another checkpoint's facts after a fork). The
   * same array as the last call is taken as unchanged (the slot's reducer never mutates a list).
   * Returns how many facts were (re)indexed and discarded.
   */
  sync(facts: readonly Fact[]): { indexed: number; discarded: number };
  /**
   * The `k` facts most relevant to `query` with a score of at least `minScore` (BM25+, unitless),
   * best first; equal scores in the order of the list last synced.
   */
  search(query: string, k: number, minScore?: number): RankedFact[];
  /** Number of facts indexed. */
  readonly size: number;
}

/**
 * Terms a question implies but does not write, added to its search terms. Korean `살` is both the
 * age counter (`몇 살이에요?`) and the stem of 살다, to live (`어디에 살죠?`, `살고 있죠?`): which one
 * a question means decides between the age and the residence fact, so neither keyword list holds
 * `살`, and the question's form adds `나이` or `거주`.
 */
function impliedTerms(query: string): string[] {
  const terms: string[] = [];
  if (/몇\s*살|살\s*(?:이|이에요|이야|이죠|인가요|이지|먹었)|나이/.test(query)) terms.push("나이");
  if (/(?:어디|어느|동네|사는\s*곳)[^?]*?(?:살|사[는세시나니냐]|삽|거주)|(?:^|\s)살(?:고|아|죠|았|지|던|면서|아요|고\s*있)/.test(query))
    terms.push("거주");
  return terms;
}

/**
 * The parts of a compound question, each asking for its own fact: split at `and`/`or` before a
 * second question (`where do I live and what is my job?`), and at Korean joins (`-이랑/-랑/-하고` after a noun, `-고` ending a verb before another clause:
 * `어디 살고 무슨 일 하죠?`). One part when there is no join.
 */
export function questionParts(query: string): string[] {
  return query
    .split(
      /\s*;\s*|,?\s+(?:and|or|also|plus)\s+(?=(?:what|where|when|who|whom|which|how|why|do|does|did|is|are|was|were|have|has|can)\b)|(?<=[가-힣](?:이랑|랑|하고))\s+|(?<=(?:^|\s)[가-힣]{1,3}(?<![하])고)\s+(?=[가-힣])|\s+그리고\s+/i,
    )
    .map((part) => part.trim())
    .filter((part) => part !== "");
}

function keywordsOf(fact: Fact): string {
  return `${fact.subject} ${ATTRIBUTE_KEYWORDS[fact.attribute] ?? fact.attribute}`;
}

/**
 * Creates an incremental fact index (issue 16): MiniSearch (BM25+) with core's `tokenize` (Korean
 * particles stripped, Hangul bigrams, light English stemming). A query also meets what recall's
 * message index lets it meet (core's `QueryWidening`, session 61): a fact's terms of the other
 * script sharing a cross-script key with a query term (`Brompton` for `브롬톤`, at
 * `CROSS_SCRIPT_WEIGHT`), for a long Latin query term no fact holds, its near spellings (at
 * `NEAR_SPELLING_WEIGHT`), and for an English query term no fact holds, a fact's words of the same
 * meaning or a kind of it (core's `lexiconMembers`: `cockatiel` for `bird`, at `RELATED_WORD_WEIGHT`;
 * lex61, measured with `bench/facts.ts`). A fact's text has weight 1, its
 * subject and attribute keywords ({@link ATTRIBUTE_KEYWORDS}) weight 0.5. Keep one per thread and
 * call {@link FactIndex.sync} with the slot's facts before searching: a slot change (add, replace,
 * discard) re-indexes only what changed, so a user message no longer rebuilds the index.
 *
 * @example
 * const index = createFactIndex(slot.facts);
 * index.search("Where do I live now?", 3); // [{ fact: { attribute: "residence", ... }, score: 2.1 }]
 */
export function createFactIndex(initial: readonly Fact[] = []): FactIndex {
  // Documents in the index per term. A query term no fact holds adds nothing to any score, so it is
  // left out of the search: MiniSearch costs per query term, and most words of a message are in no
  // fact (identical ranking, fewer terms).
  const vocabulary = new Map<string, number>();
  // The terms of the facts' texts keyed for what a query also meets (core's `QueryWidening`, as
  // recall's message index: a question's `브롬톤` meets a fact's `Brompton`, `torunament` meets
  // `tournament`), with how many documents' texts hold each. Not the attribute keywords: they are
  // written in both languages already, and an English question's `chang` would meet `직장`.
  const widening = new QueryWidening();
  // Terms of the field values being added or removed, so each value is tokenized once.
  const tokenized = new Map<string, string[]>();
  const termsOf = (value: string): string[] => tokenized.get(value) ?? tokenize(value);
  /** Counts `doc`'s terms in (or out of) the vocabulary; returns its field lengths as MiniSearch counts them (distinct terms). */
  const count = (doc: FactDocument, delta: 1 | -1): FieldLengths => {
    const terms = new Set<string>();
    const lengths: number[] = [];
    for (const value of [doc.text, doc.keywords]) {
      const list = tokenize(value);
      tokenized.set(value, list);
      const distinct = new Set(list);
      lengths.push(distinct.size);
      for (const term of distinct) terms.add(term);
      if (value !== doc.text) continue;
      if (delta === 1) widening.addDocument(distinct);
      else widening.removeDocument(distinct);
    }
    for (const term of terms) {
      const n = (vocabulary.get(term) ?? 0) + delta;
      if (n > 0) vocabulary.set(term, n);
      else vocabulary.delete(term);
    }
    return lengths as unknown as FieldLengths;
  };
  const add = (doc: FactDocument): FieldLengths => {
    const lengths = count(doc, 1);
    mini.add(doc);
    tokenized.clear();
    return lengths;
  };
  const remove = (doc: FactDocument): void => {
    count(doc, -1);
    mini.remove(doc);
    tokenized.clear();
  };
  const newMini = () =>
    new MiniSearch<FactDocument>({
      fields: ["text", "keywords"],
      tokenize: termsOf,
      processTerm: (term) => term,
      searchOptions: { boost: { text: 1, keywords: 0.5 }, combineWith: "OR", prefix: false, fuzzy: false },
    });
  let mini = newMini();
  // key -> the fact object last synced, the document indexed for it and the subject and attribute
  // it was made from (compared by value at each sync: a fact edited in place is indexed again, and
  // removed by the document MiniSearch holds), its position in the list last synced (the
  // tie-break of equal scores), the sync that last saw it and its field lengths.
  const byKey = new Map<string, IndexedFact>();
  /**
   * MiniSearch keeps each field's mean length (a BM25 input) as a running mean over adds and
   * removes, so an index kept in step drifts from one built from the same facts in the last bits
   * (about 1e-15 relative): scores differ, and a `minScore` cut or a near tie could too. Sets the
   * means a fresh index computes (the same running mean, over the facts in slot order): O(facts)
   * additions, no tokenizing. If a MiniSearch version keeps them elsewhere, the engine is rebuilt
   * from `facts` instead (exact, tokenizes every fact).
   */
  const settle = (facts: readonly Fact[]): void => {
    const means = [0, 0];
    const visited = new Set<string>();
    for (const fact of facts) {
      if (visited.has(fact.key)) continue;
      visited.add(fact.key);
      const lengths = (byKey.get(fact.key) as { lengths: FieldLengths }).lengths;
      const n = visited.size - 1;
      for (const field of [0, 1] as const) means[field] = ((means[field] as number) * n + lengths[field]) / (n + 1);
    }
    const internals = mini as unknown as { _avgFieldLength?: unknown };
    if (Array.isArray(internals._avgFieldLength) && internals._avgFieldLength.length === 2) {
      internals._avgFieldLength[0] = means[0];
      internals._avgFieldLength[1] = means[1];
      return;
    }
    mini = newMini();
    vocabulary.clear();
    widening.clear();
    for (const key of visited) {
      const entry = byKey.get(key) as IndexedFact;
      entry.lengths = add(entry.doc);
    }
  };
  let syncs = 0;

  const index: FactIndex = {
    get size() {
      return byKey.size;
    },
    sync(facts) {
      syncs += 1;
      let indexed = 0;
      let discarded = 0;
      let distinct = 0;
      for (const [position, fact] of facts.entries()) {
        const entry = byKey.get(fact.key);
        if (entry && entry.seen !== syncs) distinct += 1;
        // Unchanged when the indexed fields are: counters change on every use, a checkpointer
        // hands over new objects and a caller may edit one in place, so the fields are compared
        // with what was indexed, never the object (no string is built).
        if (entry && sameIndexedFields(entry, fact)) {
          entry.fact = fact;
          entry.position = position;
          entry.seen = syncs;
          continue;
        }
        // `remove` (not MiniSearch's lazy `discard`/`replace`): a discarded document still counts
        // in its terms' document frequencies until a search cleans it up, so the first search
        // after a change scored other facts wrongly, even below zero (dropped from the recall).
        if (entry) remove(entry.doc);
        else distinct += 1;
        const doc = documentOf(fact);
        byKey.set(fact.key, { fact, doc, subject: fact.subject, attribute: fact.attribute, position, seen: syncs, lengths: add(doc) });
        indexed += 1;
      }
      if (distinct !== byKey.size) {
        for (const [key, entry] of [...byKey]) {
          if (entry.seen === syncs) continue;
          remove(entry.doc);
          byKey.delete(key);
          discarded += 1;
        }
      }
      if (indexed > 0 || discarded > 0) settle(facts);
      return { indexed, discarded };
    },
    search(query, k, minScore = 0) {
      if (k <= 0 || byKey.size === 0) return [];
      const ranked = (part: string): RankedFact[] => {
        // Repeated terms stay: each occurrence weighs in MiniSearch's OR, as before the filter.
        const asked = [...tokenize(part), ...impliedTerms(part)];
        const { crossed, near, related } = widening.widen(asked, (term) => vocabulary.has(term), { related: true });
        const terms = [...asked.filter((term) => vocabulary.has(term)), ...crossed, ...near, ...related];
        if (terms.length === 0) return [];
        const hits: Array<RankedFact & { position: number }> = [];
        const options =
          crossed.size === 0 && near.size === 0 && related.size === 0
            ? { tokenize: (text: string) => text.split(" ") }
            : {
                tokenize: (text: string) => text.split(" "),
                boostTerm: (term: string) =>
                  crossed.has(term)
                    ? CROSS_SCRIPT_WEIGHT
                    : near.has(term)
                      ? NEAR_SPELLING_WEIGHT
                      : related.has(term)
                        ? RELATED_WORD_WEIGHT
                        : 1,
              };
        for (const hit of mini.search(terms.join(" "), options)) {
          if (hit.score < minScore) break;
          const entry = byKey.get(hit.id as string);
          if (entry) hits.push({ fact: entry.fact, score: hit.score, position: entry.position });
        }
        // Equal scores in the slot's order (the scores are bit-identical to a fresh index's, see
        // `settle`; MiniSearch returns ties in the order documents were added, which differs).
        hits.sort((a, b) => b.score - a.score || a.position - b.position);
        return hits.slice(0, k).map(({ fact, score }) => ({ fact, score }));
      };
      // The question read as the tokenizer reads it: its parts and implied terms match NFD or full-width questions too.
      const question = analysisText(query);
      const questions = questionParts(question);
      if (questions.length < 2) return ranked(question);
      const parts = questions.map(ranked).filter((hits) => hits.length > 0);
      if (parts.length < 2) return ranked(question);
      // A compound question ("where do I live and what is my job?"): each part's best facts in
      // turn, so one part's high scores cannot crowd out the other's answer.
      const out: RankedFact[] = [];
      const seen = new Set<string>();
      for (let rank = 0; out.length < k && parts.some((hits) => rank < hits.length); rank += 1) {
        for (const hits of parts) {
          const hit = hits[rank];
          if (hit === undefined || seen.has(hit.fact.key) || out.length >= k) continue;
          seen.add(hit.fact.key);
          out.push(hit);
        }
      }
      return out;
    },
  };
  index.sync(initial);
  return index;
}

/** A document's length per field (text, keywords), in distinct terms. */
type FieldLengths = readonly [number, number];

interface FactDocument {
  id: string;
  text: string;
  keywords: string;
}

function documentOf(fact: Fact): FactDocument {
  return { id: fact.key, text: fact.text, keywords: keywordsOf(fact) };
}

/** A fact as indexed (see `byKey` in {@link createFactIndex}). */
interface IndexedFact {
  fact: Fact;
  doc: FactDocument;
  subject: Fact["subject"];
  attribute: Fact["attribute"];
  position: number;
  seen: number;
  lengths: FieldLengths;
}

/** Whether `fact` holds the fields `indexed` was indexed from (its text, subject and attribute). */
function sameIndexedFields(indexed: IndexedFact, fact: Fact): boolean {
  return indexed.doc.text === fact.text && indexed.subject === fact.subject && indexed.attribute === fact.attribute;
}

/**
 * Ranks `facts` against `query` (the newest user message) and returns at most `maxItems`, best
 * first (spec R17). Empty when the query shares no indexed term with any fact, or no score
 * reaches `minScore`: then nothing is placed. Builds a throwaway index: for repeated queries on a
 * thread keep a {@link createFactIndex} and `sync` it.
 *
 * @example
 * recallFacts(slot.facts, "Where do I live now?", { maxItems: 3 }); // [{ fact: { attribute: "residence", ... }, score: 2.1 }]
 */
export function recallFacts(facts: readonly Fact[], query: string, options: { maxItems: number; minScore?: number }): RankedFact[] {
  return createFactIndex(facts).search(query, options.maxItems, options.minScore);
}

/** Renders facts as the text of a `facts` context block: one `- <line>` each ({@link factLine}). */
export function renderFacts(facts: readonly Fact[]): string {
  return facts.map((fact) => `- ${factLine(fact)}`).join("\n");
}

/** Default most threads whose fact index a {@link FactIndexCache} holds (threads). */
export const DEFAULT_FACT_INDEX_MAX_THREADS = 10_000;
/**
 * Default most facts held across a {@link FactIndexCache}'s indexes (facts): what 256 threads of
 * 200 facts held under the former 256-thread bound. Heap per fact depends on the index's size
 * (MiniSearch's postings of its text and keywords, and the fact objects the index points at):
 * about 2 KiB at 200 facts per thread (about 100 MiB at the bound), about 4.6 KiB at 23 (105 KiB
 * per index, about 235 MiB at the bound; `bench/scale.ts --fact-index-threads`).
 */
export const DEFAULT_FACT_INDEX_MAX_FACTS = 51_200;

/**
 * One {@link FactIndex} per thread, least recently used thread evicted first. Bounded in size, not
 * only in threads (issue 21: a 256-thread bound made a process serving more threads than that
 * rebuild an index on every call, however few facts each thread had): at most `maxThreads`
 * indexes and `maxFacts` facts across them, counted as each index held them when it was last
 * handed out and synced. The thread being served is always held. An evicted thread's index is
 * built again from its facts when it comes back; it ranks exactly as the one it replaces
 * ({@link FactIndex.sync}), so the bound never changes a result.
 */
export class FactIndexCache {
  readonly #indexes: SizedLru<string, FactIndex>;
  /** The thread last handed out: its index is synced by the caller after {@link FactIndexCache.for}. */
  #last: { threadId: string; index: FactIndex } | undefined;
  constructor(
    readonly maxThreads: number = DEFAULT_FACT_INDEX_MAX_THREADS,
    readonly maxFacts: number = DEFAULT_FACT_INDEX_MAX_FACTS,
  ) {
    this.#indexes = new SizedLru(maxThreads, maxFacts);
  }

  /** Indexes held (threads). */
  get threads(): number {
    return this.#indexes.size;
  }

  /**
   * The thread's index, synced with `facts` when given (leave them out when the caller syncs
   * itself before searching); a thread without an id gets a throwaway index.
   */
  for(threadId: string, facts?: readonly Fact[]): FactIndex {
    if (threadId === "") return createFactIndex(facts);
    // The index handed out last was synced by its caller since: count its facts now.
    const last = this.#last;
    if (last && this.#indexes.peek(last.threadId) === last.index) this.#indexes.resize(last.threadId, last.index.size);
    const index = this.#indexes.get(threadId) ?? this.#indexes.set(threadId, createFactIndex());
    if (facts) index.sync(facts);
    this.#indexes.resize(threadId, index.size);
    this.#last = { threadId, index };
    return index;
  }
}
