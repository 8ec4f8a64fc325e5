/**
 * Runs every example the way the README tells a user to (`pnpm tsx examples/<name>.ts`), offline:
 * no API key in the environment, so each example takes its replay or fake-model path.
 * An example exits 0, prints something and leaves no `threadwise-*` file or folder in the temp
 * dir (each runs with its own TMPDIR); a crash or a hang fails the suite.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..");
const examples = readdirSync(resolve(root, "examples"))
  .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !f.startsWith("_"))
  .sort();

const run = promisify(execFile);

describe("examples run offline", () => {
  it("has examples", () => {
    expect(examples.length).toBeGreaterThan(0);
  });
  for (const file of examples) {
    it(`examples/${file}`, { timeout: 180_000 }, async () => {
      const temp = mkdtempSync(join(tmpdir(), "tw-example-tmp-"));
      const env: NodeJS.ProcessEnv = { ...process.env, EXAMPLE_ONESHOT: "1", TMPDIR: temp };
      delete env.OPENAI_API_KEY;
      delete env.OPENAI_BASE_URL;
      const { stdout } = await run(resolve(root, "node_modules/.bin/tsx"), [resolve(root, "examples", file)], {
        cwd: root,
        env,
        timeout: 170_000,
        maxBuffer: 64 * 1024 * 1024,
      });
      expect(stdout.trim().length).toBeGreaterThan(0);
      const left = readdirSync(temp).filter((f) => f.startsWith("threadwise-"));
      rmSync(temp, { recursive: true, force: true });
      expect(left).toEqual([]);
    });
  }
});
