/** The fenced code blocks of the root README, found by the HTML comment marker before them. */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

/** Path of the root README. */
export const README_PATH = resolve(import.meta.dirname, "../README.md");

/**
 * The body of the first fenced code block after the line containing `marker` (an HTML comment
 * such as `<!-- quick-start: ... -->`), without its fences.
 *
 * @throws Error when the marker or a block after it is missing.
 */
export function readmeBlock(marker: string, readme = readFileSync(README_PATH, "utf8")): string {
  const at = readme.indexOf(`<!-- ${marker}`);
  if (at < 0) throw new Error(`README.md has no <!-- ${marker} --> marker`);
  const match = /```[a-z]*\n([\s\S]*?)```/.exec(readme.slice(at));
  if (!match?.[1]) throw new Error(`README.md has no code block after <!-- ${marker} -->`);
  return match[1];
}
