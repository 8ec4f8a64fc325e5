/**
 * Helpers for this package's tests (not exported from the package): a statement's facts as
 * `subject:attribute=value` strings (` (ended)` appended to an ended fact), and the two checks the
 * extraction-class tests make with them.
 */
import { expect } from "vitest";
import { extractFactsHeuristic } from "./extract-heuristic.js";

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
