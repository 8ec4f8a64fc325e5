/** The fenced code blocks of the READMEs: the root one found by the HTML comment marker before it, and every ```ts block. */
import { existsSync, readdirSync, readFileSync } from "node:fs";
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

/** One fenced ```ts block of a README, with the marker comment (if any) on the lines before it. */
export interface ReadmeCodeBlock {
  /** README path relative to the repository root (`packages/summarize/README.md`). */
  readme: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The code, without its fences. */
  code: string;
  /**
   * The reason given by a `<!-- readme-test: fragment: <reason> -->` comment right before the block:
   * a block that is a fragment by design and is not run on its own.
   */
  fragment?: string;
  /**
   * What the block prints (`console.log`, one line each), when a `<!-- readme-test: output -->`
   * comment and a fenced block follow it (blank lines between them allowed): the README shows it,
   * and test/readme-blocks.test.ts checks it.
   */
  output?: string;
}

/** Every README.md of the repository: the root one and one per package. */
export function readmePaths(root = resolve(import.meta.dirname, "..")): string[] {
  const packages = readdirSync(resolve(root, "packages"))
    .filter((name) => existsSync(resolve(root, "packages", name, "README.md")))
    .sort()
    .map((name) => `packages/${name}/README.md`);
  return ["README.md", ...packages];
}

/**
 * The ```ts blocks of one README (other languages are not code a user runs: shell, text, JSON).
 * A block is a fragment when the last non-blank line before its fence is
 * `<!-- readme-test: fragment: <reason> -->`.
 */
export function readmeCodeBlocks(readme: string, root = resolve(import.meta.dirname, "..")): ReadmeCodeBlock[] {
  const lines = readFileSync(resolve(root, readme), "utf8").split("\n");
  const blocks: ReadmeCodeBlock[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const fence = /^```(\w*)\s*$/.exec(lines[i] ?? "");
    if (!fence) continue;
    const end = lines.findIndex((text, j) => j > i && text.startsWith("```"));
    if (end < 0) throw new Error(`${readme}:${i + 1}: unclosed code block`);
    if (fence[1] === "ts") {
      let before = i - 1;
      while (before >= 0 && (lines[before] ?? "").trim() === "") before -= 1;
      const marker = /^<!-- readme-test: fragment: (.+?) -->$/.exec((lines[before] ?? "").trim());
      const output = outputAfter(lines, end + 1);
      blocks.push({
        readme,
        line: i + 1,
        code: lines.slice(i + 1, end).join("\n"),
        ...(marker ? { fragment: marker[1] } : {}),
        ...(output === undefined ? {} : { output }),
      });
    }
    i = end;
  }
  return blocks;
}

/** The body of the fenced block after a `<!-- readme-test: output -->` comment that starts at line `from` (blank lines skipped). */
function outputAfter(lines: readonly string[], from: number): string | undefined {
  let at = from;
  while (at < lines.length && (lines[at] ?? "").trim() === "") at += 1;
  if ((lines[at] ?? "").trim() !== "<!-- readme-test: output -->") return undefined;
  at += 1;
  while (at < lines.length && (lines[at] ?? "").trim() === "") at += 1;
  if (!(lines[at] ?? "").startsWith("```")) return undefined;
  const end = lines.findIndex((text, j) => j > at && text.startsWith("```"));
  return end < 0 ? undefined : lines.slice(at + 1, end).join("\n");
}
