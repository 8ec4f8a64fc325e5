/**
 * Every relative link of the repository's Markdown (READMEs, docs/, ARCHITECTURE.md, bench/,
 * data/, changesets) points to a file or folder that exists, and a `#fragment` to a heading of the
 * linked Markdown file (GitHub's anchors: lower case, punctuation dropped, spaces as `-`, `-1` for
 * a repeated heading). A reader who follows a link from the README lands somewhere.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..");
/** Folders that hold no Markdown of ours (installed, built or generated). */
const SKIPPED = new Set(["node_modules", ".git", "dist", ".turbo", "coverage", "api"]);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : markdownFiles(path);
    return entry.name.endsWith(".md") ? [path] : [];
  });
}

/** The text outside fenced code blocks (a fence closes only on the same fence characters). */
function prose(text: string): string {
  let fence: string | undefined;
  return text
    .split("\n")
    .map((line) => {
      const opening = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
      if (opening && fence === undefined) fence = opening;
      else if (opening && fence !== undefined && line.trim().startsWith(fence)) fence = undefined;
      else if (fence === undefined) return line;
      return "";
    })
    .join("\n");
}

/** GitHub's anchor of a heading. */
const anchorOf = (heading: string) =>
  heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");

const anchorsCache = new Map<string, Set<string>>();
function anchors(file: string): Set<string> {
  const known = anchorsCache.get(file);
  if (known) return known;
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const match of prose(readFileSync(file, "utf8")).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const anchor = anchorOf(match[1] as string);
    const count = seen.get(anchor) ?? 0;
    seen.set(anchor, count + 1);
    found.add(count === 0 ? anchor : `${anchor}-${count}`);
  }
  anchorsCache.set(file, found);
  return found;
}

/** `file: link (what is wrong)` for each broken relative link of `file`. */
function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const match of prose(readFileSync(file, "utf8")).matchAll(/\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g)) {
    const link = match[1] as string;
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto:
    const [path = "", fragment] = link.split("#");
    const target = path === "" ? file : resolve(dirname(file), decodeURIComponent(path));
    const name = `${relative(root, file)}: ${link}`;
    if (!existsSync(target)) broken.push(`${name} (no such file)`);
    else if (fragment !== undefined && target.endsWith(".md") && !anchors(target).has(fragment)) broken.push(`${name} (no such heading)`);
  }
  return broken;
}

describe("relative links in the repository's Markdown", () => {
  const files = markdownFiles(root);

  it("finds the READMEs, docs/ and the ARCHITECTURE files", () => {
    const names = files.map((file) => relative(root, file));
    expect(names).toEqual(expect.arrayContaining(["README.md", "docs/MEMORY-SPEC.md", "packages/core/ARCHITECTURE.md", "bench/README.md"]));
  });

  it("the checker itself: anchors as GitHub makes them", () => {
    expect(anchorOf("Archive: keep every message, pay per step for the hot part")).toBe(
      "archive-keep-every-message-pay-per-step-for-the-hot-part",
    );
    expect(anchorOf("Quick start (this repository)")).toBe("quick-start-this-repository");
    expect(anchorOf("`memoryStack` options and env")).toBe("memorystack-options-and-env");
    expect(anchors(resolve(root, "README.md")).has("private-memory-state")).toBe(true);
  });

  // Was: bench/README.md and bench/upstream/createAgent-reread.md linked results/step.md and
  // step.json, which bench/step.ts writes on a run and were never committed.
  it("each points to an existing file, and a #fragment to a heading of it", () => {
    expect(files.flatMap((file) => brokenLinks(file))).toEqual([]);
  });
});
