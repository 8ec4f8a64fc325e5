/**
 * The held-out fixtures written blind and not yet measured by the lead: tools that read the
 * committed data to tune or to check a change (`bench/korean-words.ts`) skip them, so no rule is
 * written from their text before their figures are read. Matched by file name, whatever the
 * folder: `korean-heldout19.locomo.json` is blind, `korean-facts-heldout19.labelled.json` (an older
 * set, measured in session 57) is not.
 */
import { basename } from "node:path";

/** File names (without `.locomo.json` / `.labelled.json`) of the blind sets, newest last. */
export const BLIND_FIXTURES: readonly string[] = [
  // Session 63 (data63).
  "korean-heldout18",
  "english-heldout18",
  "korean-facts-heldout25",
  "english-facts-heldout12",
  // Session 64 (data64).
  "korean-heldout19",
  "english-heldout19",
  "korean-facts-heldout26",
  "english-facts-heldout13",
  // Session 65 (data65).
  "korean-heldout20",
  "english-heldout20",
  "korean-facts-heldout27",
  "english-facts-heldout14",
  // Session 66 (data66).
  "korean-heldout21",
  "english-heldout21",
  "korean-facts-heldout28",
  "english-facts-heldout15",
];

/**
 * Whether `path` names one of the {@link BLIND_FIXTURES} (its file name is the set's name followed
 * by `.`: `korean-heldout19.locomo.json`; not `korean-heldout190.json` nor `korean-facts-heldout19`).
 *
 * @param path - a file path or name
 */
export function isBlindFixture(path: string): boolean {
  const name = basename(path);
  return BLIND_FIXTURES.some((set) => name.startsWith(`${set}.`));
}
