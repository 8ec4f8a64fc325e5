/**
 * The labelled-statements file `bench/fact-extraction.ts` reads (`bench/fixtures/*.labelled.json`):
 * user statements, each with the facts it states. A field left empty (`"value": ""`, an attribute of
 * spaces) is refused with the field named, not read: an empty labelled value matched no prediction
 * and counted as a miss, and an empty text was a statement with nothing in it.
 */
import { z } from "zod/v4";
import { readDataFile } from "./data-file.js";

/**
 * A string with a letter or a digit in it (`field` names it in the refusal): a value of spaces or
 * punctuation alone (`""`, `" "`, `"-"`) squashes to nothing and can match no prediction.
 */
const filled = (field: string) => z.string().regex(/[\p{L}\p{N}]/u, `empty ${field}: expected a word`);

/** One labelled fact: `subject` (`user`, `user's 어머니`), `attribute`, `value`, and `ended` when it holds no longer. */
export const labelledFact = z.object({
  subject: filled("subject"),
  attribute: filled("attribute"),
  value: filled("value"),
  ended: z.boolean().optional(),
});
export type LabelledFact = z.infer<typeof labelledFact>;

/** `{ items: [{ text, facts }] }`: at least one statement; a statement may state no fact (`facts: []`). */
export const labelledFactFile = z.object({
  items: z
    .array(z.object({ text: z.string().regex(/\S/, "empty text: expected a statement"), facts: z.array(labelledFact) }))
    // No statement: no time per message (0 / 0) and nothing to match.
    .min(1, "no statement: expected labelled items"),
});
export type LabelledFactFile = z.infer<typeof labelledFactFile>;

/**
 * Reads a labelled-statements file.
 *
 * @param path - the file, as given to `--data`
 * @returns its items
 * @throws BenchDataError (`code` `BENCH_DATA_SHAPE`) naming the first field that does not fit:
 *   `items[3].facts[0].value` for an empty value, `items` for a file with no statement
 */
export function readLabelledFacts(path: string): LabelledFactFile["items"] {
  return readDataFile(labelledFactFile, path, "labelled fact file").items;
}
