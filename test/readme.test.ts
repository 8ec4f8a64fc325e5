/**
 * The README's quick start, as pasted: the code block after the `quick-start:` marker runs as a
 * module (with the workspace's packages, offline) and must print exactly the README's output
 * block. So the README cannot drift from the code. The packaging check (`pnpm test:slow`) runs the
 * same block in an app outside the repository, against the packed tarballs.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { readmeBlock } from "../scripts/readme-block.js";

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
