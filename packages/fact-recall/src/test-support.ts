/**
 * Helpers for this package's tests (not exported from the package): a statement's facts as
 * `subject:attribute=value` strings (` (ended)` appended to an ended fact), and the two checks the
 * extraction-class tests make with them.
 */
import { expect } from "vitest";
import { extractFactsHeuristic } from "./extract-heuristic.js";
import type { Fact } from "./fact-store.js";

/** A stored heuristic fact about the user whose value and text are `text` (first seen and last updated at turn 1, never used). */
export function userFact(key: string, text: string, attribute: string, language: "en" | "ko" = "en"): Fact {
  return {
    key,
    subject: "user",
    attribute,
    value: text,
    text,
    language,
    sourceMessageId: `m-${key}`,
    origin: "heuristic",
    createdTurn: 1,
    updatedTurn: 1,
    lastUsedTurn: 0,
    uses: 0,
    mentions: 1,
  };
}

/** The facts `extractFactsHeuristic` finds in `text`, as `subject:attribute=value[ (ended)]`. */
export const pairs = (text: string): string[] =>
  extractFactsHeuristic(text).map((f) => `${f.subject}:${f.attribute}=${f.value}${f.ended ? " (ended)" : ""}`);

/** Expects `fact` (`subject:attribute=value[ (ended)]`) among the facts of `text`. */
export const expectFact = (text: string, fact: string): void => {
  const found = pairs(text);
  expect(found, `${text} -> ${found.join(", ")}`).toContain(fact);
};

/** Expects no fact of `text` to start with `prefix` (e.g. `user:work`). */
export const expectNo = (text: string, prefix: string): void => {
  const found = pairs(text);
  expect(
    found.filter((p) => p.startsWith(prefix)),
    `${text} -> ${found.join(", ")}`,
  ).toEqual([]);
};
