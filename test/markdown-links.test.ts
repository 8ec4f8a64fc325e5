/**
 * Every relative link of the repository's Markdown (READMEs, docs/, ARCHITECTURE.md, bench/,
 * data/, changesets) points to a file or folder that exists, and a `#fragment` to a heading of the
 * linked Markdown file (GitHub's anchors: lower case, punctuation dropped, spaces as `-`, `-1` for
 * a repeated heading). A reader who follows a link from the README lands somewhere. A link to a
 * file of this repository on the web (`https://github.com/<repo>/blob/main/<path>`) is checked the
 * same way against the working tree. The Markdown a package publishes (its README, on npm) links
 * by a relative path only to files its tarball holds: anything else by the repository's address.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
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

/** The links of a Markdown file's prose (`[text](link)`), as written. */
const linksOf = (file: string): string[] =>
  [...prose(readFileSync(file, "utf8")).matchAll(/\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g)].map((match) => match[1] as string);

/** The repository on the web, from the root package.json (`git+https://github.com/o/r.git` gives `https://github.com/o/r`). */
const repositoryUrl = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { repository: { url: string } }).repository.url
  .replace(/^git\+/, "")
  .replace(/\.git$/, "");
/** A link to a file or folder of this repository's main branch on the web: its path in the repository. */
const REPOSITORY_LINK = new RegExp(`^${repositoryUrl.replace(/[.]/g, "\\.")}/(?:blob|tree)/main/([^#]*)(#.*)?$`);

/**
 * `file: link (what is wrong)` for each broken relative link of `file`, and each broken link to a
 * file of this repository on the web (`https://github.com/<repo>/blob/main/<path>`, as the
 * package READMEs write them), checked against the working tree.
 */
function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const link of linksOf(file)) {
    const onTheWeb = REPOSITORY_LINK.exec(link);
    if (!onTheWeb && /^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto:
    const [path = "", fragment] = onTheWeb ? [onTheWeb[1], onTheWeb[2]?.slice(1)] : link.split("#");
    const target = onTheWeb
      ? resolve(root, decodeURIComponent(path))
      : path === ""
        ? file
        : resolve(dirname(file), decodeURIComponent(path));
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
  it("the checker itself: a link to this repository on the web is checked like a relative one", () => {
    expect(repositoryUrl).toBe("https://github.com/threadwise/threadwise");
    expect(REPOSITORY_LINK.exec(`${repositoryUrl}/blob/main/bench/README.md#recall-with-the-archive`)?.slice(1)).toEqual([
      "bench/README.md",
      "#recall-with-the-archive",
    ]);
    expect(REPOSITORY_LINK.exec(`${repositoryUrl}/tree/main/packages/fact-recall`)?.[1]).toBe("packages/fact-recall");
    expect(REPOSITORY_LINK.exec("https://github.com/other/threadwise/blob/main/README.md")).toBeNull();
  });
});

/** A published package: its folder and the `files` of its package.json (what its tarball holds, beside package.json). */
const packages = readdirSync(join(root, "packages")).map((name) => {
  const dir = join(root, "packages", name);
  const { files = [] } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { files?: string[] };
  return { dir, files };
});

/**
 * `file: link (why it is dead in the tarball)` for each relative link of a Markdown file shipped
 * in a package that leaves the files the package publishes: npm and the registry's page show the
 * README from the tarball, where `../../README.md` or an unpublished file does not exist.
 */
function linksOutsideTarball(pkg: { dir: string; files: string[] }, file: string): string[] {
  const dead: string[] = [];
  for (const link of linksOf(file)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue;
    const [path = ""] = link.split("#");
    if (path === "") continue;
    const inPackage = relative(pkg.dir, resolve(dirname(file), decodeURIComponent(path)));
    const name = `${relative(root, file)}: ${link}`;
    if (inPackage.startsWith("..") || isAbsolute(inPackage))
      dead.push(`${name} (outside the package: link ${repositoryUrl}/blob/main/...)`);
    else if (inPackage !== "package.json" && !pkg.files.includes(inPackage.split(sep)[0] as string))
      dead.push(`${name} (not in the package's "files")`);
  }
  return dead;
}

describe("links in the Markdown a package publishes", () => {
  // Was: packages/core/README.md linked ../../README.md, packages/recall/README.md ../fact-recall,
  // and core's ARCHITECTURE.md, which its tarball did not hold: dead links on npm.
  it("stay inside the published files; links elsewhere go to the repository on the web", () => {
    const shipped = packages.flatMap((pkg) =>
      pkg.files.filter((entry) => entry.endsWith(".md")).map((entry) => ({ pkg, file: join(pkg.dir, entry) })),
    );
    expect(shipped.map(({ file }) => relative(root, file))).toEqual(
      expect.arrayContaining(["packages/core/README.md", "packages/memory/README.md"]),
    );
    expect(shipped.flatMap(({ pkg, file }) => linksOutsideTarball(pkg, file))).toEqual([]);
  });

  it("the checker itself: a link out of the package and one to an unpublished file are named", () => {
    const dir = mkdtempSync(join(tmpdir(), "tw-links-"));
    try {
      const pkg = { dir: join(dir, "packages", "x"), files: ["dist", "README.md"] };
      mkdirSync(pkg.dir, { recursive: true });
      const readme = join(pkg.dir, "README.md");
      writeFileSync(
        readme,
        "[a](../../README.md#use-it) [b](ARCHITECTURE.md) [c](./dist/index.js) [d](https://example.com/x) [e](#usage) [f](package.json)\n",
      );
      expect(linksOutsideTarball(pkg, readme).map((line) => line.replace(/^.*README\.md: /, ""))).toEqual([
        `../../README.md#use-it (outside the package: link ${repositoryUrl}/blob/main/...)`,
        'ARCHITECTURE.md (not in the package\'s "files")',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
