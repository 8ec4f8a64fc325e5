import { tokenize } from "@threadwise/core";
import MiniSearch from "minisearch";
import type { Fact } from "./fact-store.js";

/**
 * Words added to a fact's index entry by attribute, in English and Korean, so that a question
 * names the kind of fact ("what's my job?", "직업이 뭐였죠?") and finds it without repeating the
 * value ("nurse").
 */
export const ATTRIBUTE_KEYWORDS: Readonly<Record<string, string>> = {
  name: "name called 이름",
  age: "age old years birthday 나이 살",
  residence: "live home city residence moved address where 사는 곳 살 산다 거주 집 이사 동네",
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

/** A full-text index over a set of facts; build once, query many times. */
export interface FactIndex {
  /** The `k` facts most relevant to `query` with a score of at least `minScore`, best first. */
  search(query: string, k: number, minScore?: number): RankedFact[];
}

/** Most tokenized field values remembered for index building; the oldest entry goes first. */
const TOKEN_MEMO_ENTRIES = 10_000;
const tokenMemo = new Map<string, string[]>();

/**
 * `tokenize` with a bounded memo, for the indexed fields only. The index is rebuilt from the stored
 * facts on every new user message, and a fact's text and keywords rarely change, so tokenizing them
 * again was most of that cost (measured by `bench/overhead.ts`). `tokenize` is pure and MiniSearch
 * does not modify the returned arrays. Queries are tokenized without the memo.
 */
function memoTokenize(text: string): string[] {
  let tokens = tokenMemo.get(text);
  if (tokens === undefined) {
    tokens = tokenize(text);
    if (tokenMemo.size >= TOKEN_MEMO_ENTRIES) tokenMemo.delete(tokenMemo.keys().next().value as string);
    tokenMemo.set(text, tokens);
  }
  return tokens;
}

/**
 * Indexes facts with MiniSearch (BM25+) and the threadwise tokenizer (Korean particles stripped,
 * Hangul bigrams, light English stemming). The fact's text is indexed with weight 1, the subject
 * and the attribute's keywords ({@link ATTRIBUTE_KEYWORDS}) with weight 0.5.
 */
export function createFactIndex(facts: readonly Fact[]): FactIndex {
  const index = new MiniSearch<{ id: number; text: string; keywords: string }>({
    fields: ["text", "keywords"],
    tokenize: memoTokenize,
    processTerm: (term) => term,
    searchOptions: { boost: { text: 1, keywords: 0.5 }, combineWith: "OR", prefix: false, fuzzy: false, tokenize },
  });
  index.addAll(
    facts.map((fact, id) => ({
      id,
      text: fact.text,
      keywords: `${fact.subject} ${ATTRIBUTE_KEYWORDS[fact.attribute] ?? fact.attribute}`,
    })),
  );
  return {
    search(query, k, minScore = 0) {
      if (k <= 0 || facts.length === 0 || tokenize(query).length === 0) return [];
      return index
        .search(query)
        .filter((hit) => hit.score >= minScore)
        .slice(0, k)
        .map((hit) => ({ fact: facts[hit.id as number] as Fact, score: hit.score }));
    },
  };
}

/**
 * Ranks `facts` against `query` (the newest user message) and returns at most `maxItems`, best
 * first (spec R17). Empty when the query shares no indexed term with any fact, or no score
 * reaches `minScore`: then nothing is placed.
 *
 * @example
 * recallFacts(slot.facts, "Where do I live now?", { maxItems: 3 }); // [{ fact: { attribute: "residence", ... }, score: 2.1 }]
 */
export function recallFacts(facts: readonly Fact[], query: string, options: { maxItems: number; minScore?: number }): RankedFact[] {
  return createFactIndex(facts).search(query, options.maxItems, options.minScore);
}

/** Renders facts as the text of a `facts` context block: one `- <text>` line each. */
export function renderFacts(facts: readonly Fact[]): string {
  return facts.map((fact) => `- ${fact.text}`).join("\n");
}
