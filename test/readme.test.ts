/**
 * The README's quick start, as pasted: the code block after the `quick-start:` marker runs as a
 * module (with the workspace's packages, offline) and must print exactly the README's output
 * block. So the README cannot drift from the code. The packaging check (`pnpm test:slow`) runs the
 * same block in an app outside the repository, against the packed tarballs.
 */
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { scriptedModel } from "@threadwise/core/testing";
import { windowTrim } from "@threadwise/window-trim";
import { createAgent } from "langchain";
import { describe, expect, it, vi } from "vitest";
import { readmeBlock, readmePaths } from "../scripts/readme-block.js";

const here = import.meta.dirname;

describe("README quick start", () => {
  it("runs as pasted and prints the answers the README shows", async () => {
    const code = readmeBlock("quick-start:");
    const expected = readmeBlock("quick-start output");
    expect(code).toContain("thread_id");
    // A dot file beside the tests, so the workspace aliases and TypeScript apply; removed after.
    const file = resolve(here, `.readme-quick-start-${process.pid}.ts`);
    writeFileSync(file, code);
    const printed: string[] = [];
    const log = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
      printed.push(args.map(String).join(" "));
    });
    try {
      await import(/* @vite-ignore */ file);
    } finally {
      log.mockRestore();
      rmSync(file, { force: true });
    }
    expect(printed.join("\n")).toBe(expected.trim());
  });

  it("names only packages of this repository and LangChain in the quick start", () => {
    const imports = [...readmeBlock("quick-start:").matchAll(/from "([^"]+)"/g)].map((m) => m[1]);
    expect(imports).toEqual([
      "@langchain/langgraph",
      "@threadwise/core",
      "@threadwise/core/testing",
      "@threadwise/summarize",
      "@threadwise/window-trim",
      "langchain",
    ]);
    expect(readFileSync(resolve(here, "../README.md"), "utf8")).toContain("pnpm test:slow");
  });
});

// Was: "(requirements R1..R36 and R41)", though the spec had grown R37..R40 (edits, claimed turns,
// whole summaries, user memory) and the READMEs name them.
describe("README and docs/MEMORY-SPEC.md's requirements", () => {
  const spec = readFileSync(resolve(here, "../docs/MEMORY-SPEC.md"), "utf8");
  const defined = new Set([...spec.matchAll(/^- \*\*(R\d+) /gm)].map((m) => m[1]));

  it("the range the README gives is every requirement the spec defines", () => {
    const range = /\(requirements R1\.\.R(\d+)\)/.exec(readFileSync(resolve(here, "../README.md"), "utf8"));
    expect(range, "README names the spec's range as (requirements R1..Rn)").not.toBeNull();
    const count = Number(range?.[1]);
    expect([...defined].sort()).toEqual(Array.from({ length: count }, (_, i) => `R${i + 1}`).sort());
  });

  it("every requirement a README names is one the spec defines", () => {
    const readmes = readmePaths().map((path) => readFileSync(resolve(here, "..", path), "utf8"));
    const named = new Set(readmes.flatMap((text) => [...text.matchAll(/\bR(\d{1,3})\b/g)].map((m) => `R${m[1]}`)));
    expect([...named].filter((id) => !defined.has(id))).toEqual([]);
  });
});

// Was: the table of packages had no row for @threadwise/recall (on in memoryStack by default).
describe('README "Packages"', () => {
  it("has a row for every package of packages/", () => {
    const readme = readFileSync(resolve(here, "../README.md"), "utf8");
    const section = readme.slice(readme.indexOf("\n## Packages\n"), readme.indexOf("\n## ", readme.indexOf("\n## Packages\n") + 1));
    const listed = [...section.matchAll(/^\| \[`(@threadwise\/[a-z-]+)`\]\(packages\/([a-z-]+)\)/gm)].map((m) => m[2]);
    const packages = readdirSync(resolve(here, "../packages")).filter((name) =>
      existsSync(resolve(here, "../packages", name, "package.json")),
    );
    expect([...listed].sort()).toEqual([...packages].sort());
  });
});

// Was: the READMEs say `threadwise migrate`, but in a clone no `threadwise` command existed
// (`pnpm exec threadwise`: not found) until the packages were built.
describe("the threadwise CLI in a clone", () => {
  it("runs as packages/memory/README.md says, `pnpm threadwise <command>`", async () => {
    expect(readFileSync(resolve(here, "../packages/memory/README.md"), "utf8")).toContain("`pnpm threadwise <command>`");
    const { stdout } = await promisify(execFile)("pnpm", ["--silent", "threadwise", "--version"], { cwd: resolve(here, "..") });
    const { version } = JSON.parse(readFileSync(resolve(here, "../packages/memory/package.json"), "utf8")) as { version: string };
    expect(stdout.trim()).toBe(version);
  }, 60_000);
});

// Found trying the README as a new user: it showed a sliding window of 20 sending `20, 20, 20` on a
// long chat, the figures of `startOn: "any"`; under the default "human" a view starts on a user
// message, so the newest 20 of a plain chat (which begin with an answer) send 19.
describe('README "How many messages a window sends"', () => {
  /** `1, 3, ..., 19, 11, ...` as numbers: `...` between two numbers is the steps of 2 between them, at the end nothing. */
  function expand(sequence: string): number[] {
    const parts = sequence.split(",").map((part) => part.trim());
    const out: number[] = [];
    for (const [index, part] of parts.entries()) {
      if (part !== "...") {
        out.push(Number(part));
        continue;
      }
      const next = parts[index + 1];
      if (next === undefined) break;
      for (let n = (out.at(-1) as number) + 2; n < Number(next); n += 2) out.push(n);
    }
    return out;
  }

  async function sizes(options: Parameters<typeof windowTrim>[0], turns: number): Promise<number[]> {
    const sent: number[] = [];
    const model = scriptedModel((messages) => {
      sent.push(messages.filter((m) => m.getType() !== "system").length);
      return "ok";
    });
    const agent = createAgent({ model, tools: [], checkpointer: new MemorySaver(), middleware: [windowTrim(options)] });
    for (let turn = 1; turn <= turns; turn += 1) {
      await agent.invoke({ messages: [new HumanMessage(`turn ${turn}`)] }, { configurable: { thread_id: "window" } });
    }
    return sent;
  }

  it("the chunked and sliding sequences it shows are what windowTrim({ maxMessages: 20 }) sends on a plain chat", async () => {
    const readme = readFileSync(resolve(here, "../README.md"), "utf8");
    const section = readme.slice(readme.indexOf("## How many messages a window sends"));
    const chunked = /In a chat of 30 turns the model receives\s+`([^`]+)`/.exec(section)?.[1];
    const sliding = /For a sliding window \(as many messages as fit, every call: `([^`]+)`/.exec(section)?.[1];
    expect(chunked).toBeDefined();
    expect(sliding).toBeDefined();
    const shownChunked = expand(chunked as string);
    const shownSliding = expand(sliding as string);
    expect((await sizes({ maxMessages: 20 }, 30)).slice(0, shownChunked.length)).toEqual(shownChunked);
    expect((await sizes({ maxMessages: 20, eviction: "sliding" }, 30)).slice(0, shownSliding.length)).toEqual(shownSliding);
  });
});
