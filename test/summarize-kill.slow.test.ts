/**
 * A process killed between summarizer passes (issue 23): a thread imported with 300 messages is
 * summarized one pass per model call on SQLite; the process is killed with SIGKILL while its second
 * pass runs (the first one is stored), and a new process resumes. Every message that left the
 * window is in exactly one answered summarizer input over both processes, in order: nothing is
 * summarized twice and nothing is skipped.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const PROCESS_TEST_TIMEOUT_MS = 240_000;
const script = join(import.meta.dirname, "fixtures", "summarize-pass-worker.ts");
const dir = mkdtempSync(join(tmpdir(), "tw-summarize-kill-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function start(env: Record<string, string>): {
  child: ChildProcessWithoutNullStreams;
  lines: string[];
  waitFor: (prefix: string) => Promise<string>;
} {
  const child = spawn(process.execPath, ["--import", "tsx", script], { env: { ...process.env, ...env } });
  const lines: string[] = [];
  const waiters: Array<{ prefix: string; resolve: (line: string) => void }> = [];
  let buffer = "";
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  child.stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      lines.push(line);
      for (const w of waiters.splice(0)) {
        if (line.startsWith(w.prefix)) w.resolve(line);
        else waiters.push(w);
      }
    }
  });
  const waitFor = (prefix: string) =>
    new Promise<string>((resolve, reject) => {
      const seen = lines.find((line) => line.startsWith(prefix));
      if (seen) return resolve(seen);
      waiters.push({ prefix, resolve });
      child.once("exit", (code, signal) => {
        const late = lines.find((line) => line.startsWith(prefix));
        if (late) resolve(late);
        else reject(new Error(`worker exited (${code ?? signal}) before "${prefix}": ${stderr.slice(-2000)}`));
      });
    });
  return { child, lines, waitFor };
}

describe("a process killed between summarizer passes", () => {
  it(
    "resumes where the stored passes end: every evicted message in exactly one answered input, nothing summarized twice",
    async () => {
      const db = join(dir, "thread.sqlite");
      const log = join(dir, "inputs.jsonl");
      const first = start({
        WORKER_DB: db,
        WORKER_LOG: log,
        WORKER_IMPORT: "300",
        WORKER_FROM: "1",
        WORKER_TO: "3",
        WORKER_HANG_ON_CALL: "2",
      });
      await first.waitFor("turn 1");
      await first.waitFor("hanging");
      first.child.kill("SIGKILL");
      await new Promise((resolve) => first.child.once("exit", resolve));
      expect(first.child.signalCode).toBe("SIGKILL");
      const beforeKill = readFileSync(log, "utf8").trim().split("\n");
      // The first pass was answered and stored; the second was running when the process died.
      expect(beforeKill).toHaveLength(1);

      const second = start({ WORKER_DB: db, WORKER_LOG: log, WORKER_IMPORT: "0", WORKER_FROM: "2", WORKER_TO: "80" });
      const state = JSON.parse((await second.waitFor("state ")).slice("state ".length)) as {
        summary: { coveredCount: number; passes: number; coveredFromId: string | null };
        stored: number;
        coveredLines: string[];
      };
      expect(existsSync(log)).toBe(true);
      const inputs = readFileSync(log, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as string[]);
      // Every answered input, over both processes, in order: exactly the covered messages, once each.
      expect(inputs.flat()).toEqual(state.coveredLines);
      expect(state.summary.coveredCount).toBe(state.coveredLines.length);
      expect(state.summary.passes).toBe(inputs.length);
      expect(state.summary.coveredFromId).toBe("u0");
      // Caught up: everything but the window and less than one period is covered.
      expect(state.coveredLines.length).toBeGreaterThanOrEqual(state.stored - 10 - 10 - 2);
      expect(state.coveredLines.length).toBeGreaterThan(300 - 20);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
