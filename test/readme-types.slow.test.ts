/**
 * Every runnable ```ts block of every README typechecks as a user's TypeScript app would check it
 * (the repository's strict compiler options, `tsc --noEmit`). test/readme-blocks.test.ts runs the
 * same blocks, but running does not check types: a block with an implicit `any` or an option the
 * types do not have runs and still fails a user's build. Slow: one `tsc` over the blocks, about a
 * minute on a loaded 2-core machine.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { readmeCodeBlocks, readmePaths } from "../scripts/readme-block.js";

const root = resolve(import.meta.dirname, "..");
const run = promisify(execFile);

describe("README code blocks typecheck", () => {
  it("tsc --noEmit over every runnable block reports no error", { timeout: 300_000 }, async () => {
    const blocks = readmePaths().flatMap((readme) => readmeCodeBlocks(readme).filter((block) => block.fragment === undefined));
    // Inside test/, so the root tsconfig's paths map @threadwise/* to the sources; removed after.
    const dir = mkdtempSync(join(import.meta.dirname, ".readme-types-"));
    const files = new Map<string, string>();
    try {
      for (const [index, block] of blocks.entries()) {
        const file = `block-${index}.mts`;
        files.set(file, `${block.readme}:${block.line}`);
        writeFileSync(join(dir, file), block.code);
      }
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({ extends: "../../tsconfig.json", compilerOptions: { noEmit: true }, include: ["*.mts"] }),
      );
      const output = await run(resolve(root, "node_modules/.bin/tsc"), ["-p", dir], { cwd: root, maxBuffer: 16 * 1024 * 1024 }).then(
        () => "",
        (error: { stdout?: string }) => error.stdout ?? String(error),
      );
      // Name each error by its README and line, not by the temporary file.
      const errors = output
        .split("\n")
        .filter((line) => line.includes("error TS"))
        .map((line) => line.replace(/^.*?(block-\d+\.mts)/, (_, file: string) => files.get(file) ?? file));
      expect(blocks.length).toBeGreaterThan(20);
      expect(errors).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
