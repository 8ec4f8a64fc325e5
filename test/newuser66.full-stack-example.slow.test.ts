/**
 * examples/full-stack.ts (promptContextMode "stable_tail") as a user runs it: the memory context
 * sits on the newest user message, so the example's table and its "memory context of that call"
 * must read it from there (they read only separate context messages, and printed "-" on every call
 * and an empty context), and its replay model must find the user's words under that block (it
 * answered every replayed turn with the "no recorded answer" fallback, so the summary, facts and
 * work memory were built from fallback answers).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..");
const temp = mkdtempSync(join(tmpdir(), "tw-nu66-full-stack-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

async function runFullStack(): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, EXAMPLE_ONESHOT: "1", TMPDIR: temp };
  delete env.OPENAI_API_KEY;
  delete env.OPENAI_BASE_URL;
  const { stdout } = await promisify(execFile)(resolve(root, "node_modules/.bin/tsx"), [resolve(root, "examples/full-stack.ts")], {
    cwd: root,
    env,
    timeout: 170_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

describe("examples/full-stack.ts shows the stable_tail memory it placed", () => {
  it("prints the placed blocks per call and the last call's memory context; replayed turns get their recorded answers", {
    timeout: 180_000,
  }, async () => {
    const stdout = await runFullStack();
    const lines = stdout.split("\n");
    const header = lines.findIndex((l) => l.startsWith("call  stored"));
    const rows = lines.slice(header + 1, lines.indexOf("", header + 1)).map((l) => l.trim().split(/\s+/).at(-1));
    expect(rows.length).toBeGreaterThan(0);
    // the summary is due only after the first calls; from then on some block is placed
    expect(rows.some((placed) => placed !== "-")).toBe(true);
    const contextStart = lines.findIndex((l) => l.startsWith("memory context of that call"));
    const context = lines.slice(contextStart + 1, lines.indexOf("", contextStart + 2)).join("\n");
    expect(context).toContain("[Previous conversation summary]");
    expect(context).toContain("[Known facts about the user]");
    // the final question is the only turn without a recorded answer
    expect(stdout.match(/^assistant: \(offline replay: no recorded answer/m)).not.toBeNull();
    expect(stdout).toContain("full stack: ok");
  });
});
