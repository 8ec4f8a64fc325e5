/**
 * bench/archive-off.ts takes `--data` (a LoCoMo file: its first speaker's turns are the user turns
 * sent, in order) and `--json` as every bench does, and refuses a bad `--backend` or `--turns`
 * in one line naming the option, exit 2 (it took neither `--data` nor `--built`, and threw a plain
 * Error with a stack).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..");
const run = promisify(execFile);
const TSX = resolve(root, "node_modules/.bin/tsx");
const dir = mkdtempSync(join(tmpdir(), "tw-archive-off-bench-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A two-speaker LoCoMo file whose first speaker writes Korean and English. */
function locomoFile(): string {
  const turns = [
    ["민지", "D1:1", "다음 주 금요일에 부산 가요."],
    ["Sam", "D1:2", "Nice, have fun."],
    ["민지", "D1:3", "I booked the KTX at 9."],
    ["Sam", "D1:4", "Great."],
  ].map(([speaker, dia_id, text]) => ({ speaker, dia_id, text }));
  const path = join(dir, "mixed.locomo.json");
  writeFileSync(
    path,
    JSON.stringify([
      {
        sample_id: "mixed",
        conversation: { speaker_a: "민지", speaker_b: "Sam", session_1_date_time: "1:00 pm on 8 May, 2023", session_1: turns },
        qa: [{ question: "어디 가요?", answer: "부산", evidence: ["D1:1"], category: 4 }],
      },
    ]),
  );
  return path;
}

describe("bench/archive-off.ts", () => {
  it("reads --data and reports it in its JSON", { timeout: 120_000 }, async () => {
    const data = locomoFile();
    const { stdout } = await run(TSX, ["bench/archive-off.ts", "--json", "--backend", "in_memory", "--turns", "11", "--data", data], {
      cwd: root,
      timeout: 110_000,
    });
    const figures = JSON.parse(stdout) as { data: string; backend: string; counted: number; code: string };
    expect(figures).toMatchObject({ data, backend: "in_memory", counted: 1, code: "src" });
  });

  it("refuses a bad --backend or --turns in one line naming the option, exit 2", { timeout: 120_000 }, async () => {
    for (const [option, value] of [
      ["--backend", "sqlit"],
      ["--turns", "5"],
    ] as const) {
      const failed = await run(TSX, ["bench/archive-off.ts", "--json", option, value as string], { cwd: root, timeout: 110_000 }).then(
        () => undefined,
        (error: { code?: number; stdout?: string; stderr?: string }) => error,
      );
      expect(failed?.code).toBe(2);
      expect(failed?.stdout).toBe("");
      expect(failed?.stderr?.trim().split("\n")).toEqual([expect.stringMatching(new RegExp(`^${option}: `))]);
    }
  });
});
