/**
 * Fact extraction against labelled statements (issue 25): precision and recall of the heuristic
 * rules on a file of user statements, each labelled with the facts it states about the user or a
 * relative the user names, and the extraction time per message.
 *
 * A predicted fact matches a labelled one when the subject is the same (`user`, `user's 어머니`),
 * the attribute is the same, `ended` is the same (the statement says the value holds no longer),
 * and one value contains the other once spaces and punctuation are removed (`삼성` matches
 * `삼성전자`). Each labelled fact matches at most one predicted fact. `exactValues` counts the matches
 * whose two values are equal once spaces and punctuation are removed: a match with words around
 * the labelled value (`Denver last spring with my husband` for `Denver`) counts in `matched`, not
 * there; the plain output lists each such match as `loose`.
 *
 * Run: pnpm tsx bench/fact-extraction.ts                 (the Korean dev set; prints a summary and the misses)
 *      pnpm tsx bench/fact-extraction.ts --data bench/fixtures/korean-facts-heldout.labelled.json --json
 * Data: `{ "items": [{ "text": "...", "facts": [{ "subject", "attribute", "value", "ended"? }] }] }`
 * (support/labelled-facts.ts); an empty text, subject, attribute or value stops the run with the field named.
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type CandidateFact, extractFactsHeuristic } from "@threadwise/fact-recall";
import { benchArgs, printJson } from "./support/cli.js";
import { type LabelledFact as Labelled, readLabelledFacts } from "./support/labelled-facts.js";

const here = dirname(fileURLToPath(import.meta.url));
const args = benchArgs(resolve(here, "fixtures/korean-facts-dev.labelled.json"), {
  repeat: { type: "string", default: "50" },
});

const items = readLabelledFacts(args.data);
const repeat = Number(args.values.repeat);
if (!Number.isInteger(repeat) || repeat < 1) {
  console.error("--repeat must be a positive integer");
  process.exit(2);
}

const squash = (value: string) =>
  value
    .normalize("NFC")
    .toLowerCase()
    .replace(/[\s.,!?~'"“”‘’()-]+/g, "");
const sameSubject = (a: string, b: string) => a.trim().toLowerCase().replace(/\s+/g, " ") === b.trim().toLowerCase().replace(/\s+/g, " ");

function matches(gold: Labelled, predicted: CandidateFact): boolean {
  if (!sameSubject(gold.subject, predicted.subject) || gold.attribute !== predicted.attribute) return false;
  if ((gold.ended ?? false) !== (predicted.ended ?? false)) return false;
  const g = squash(gold.value);
  const p = squash(predicted.value);
  return g !== "" && p !== "" && (g.includes(p) || p.includes(g));
}

let goldCount = 0;
let predictedCount = 0;
let matched = 0;
let exactValues = 0;
let endedGold = 0;
let endedMatched = 0;
let noFactItems = 0;
let noFactItemsWithPrediction = 0;
const misses: string[] = [];
for (const item of items) {
  const predicted = extractFactsHeuristic(item.text);
  const used = new Set<number>();
  goldCount += item.facts.length;
  predictedCount += predicted.length;
  if (item.facts.length === 0) {
    noFactItems += 1;
    if (predicted.length > 0) noFactItemsWithPrediction += 1;
  }
  for (const gold of item.facts) {
    if (gold.ended) endedGold += 1;
    const at = predicted.findIndex((p, i) => !used.has(i) && matches(gold, p));
    if (at === -1) {
      misses.push(`missed  ${item.text}  ->  ${gold.subject}:${gold.attribute}=${gold.value}${gold.ended ? " (ended)" : ""}`);
      continue;
    }
    used.add(at);
    matched += 1;
    const p = predicted[at] as CandidateFact;
    if (squash(gold.value) === squash(p.value)) exactValues += 1;
    else misses.push(`loose   ${item.text}  ->  ${gold.subject}:${gold.attribute}=${gold.value}  got  ${p.value}`);
    if (gold.ended) endedMatched += 1;
  }
  predicted.forEach((p, i) => {
    if (!used.has(i)) misses.push(`extra   ${item.text}  ->  ${p.subject}:${p.attribute}=${p.value}${p.ended ? " (ended)" : ""}`);
  });
}

// Extraction time per message: every text `repeat` times, after one warm-up pass.
for (const item of items) extractFactsHeuristic(item.text);
const started = process.hrtime.bigint();
for (let r = 0; r < repeat; r += 1) for (const item of items) extractFactsHeuristic(item.text);
const msPerMessage = Number(process.hrtime.bigint() - started) / 1e6 / (repeat * items.length);

const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;
const figures = {
  bench: "fact-extraction",
  data: args.data,
  items: items.length,
  labelledFacts: goldCount,
  predictedFacts: predictedCount,
  matched,
  exactValues,
  precision: predictedCount === 0 ? null : round(matched / predictedCount),
  recall: goldCount === 0 ? null : round(matched / goldCount),
  ended: { labelled: endedGold, matched: endedMatched },
  noFactItems: { items: noFactItems, withAPrediction: noFactItemsWithPrediction },
  msPerMessage: round(msPerMessage, 4),
};
if (args.json) printJson(figures);
else {
  console.log(JSON.stringify(figures, null, 2));
  console.log(misses.join("\n"));
}
