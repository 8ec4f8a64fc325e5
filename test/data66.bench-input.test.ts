/**
 * Benchmarks on input they were not tuned on (session 66, data66): the blind held-out files of
 * session 66 are left out of the tools that read the committed data to tune; bench/user-memory.ts,
 * whose figures rest on user memory ordering a user's statements by their session's date line
 * (core's `parseTimestamp`), refuses a file that mixes date lines it reads with lines it cannot
 * (exit 2 naming the field: such a session's statements were ordered by the run's clock against
 * the others' dates, silently), and reads every committed non-blind file. English and Korean.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { BLIND_FIXTURES, isBlindFixture } from "../bench/support/blind.js";
import { loadLocomo, requireDateLines } from "../bench/support/locomo.js";
import { refusal } from "./support/bench-refusal.js";

const root = resolve(import.meta.dirname, "..");
const run = promisify(execFile);
const TSX = resolve(root, "node_modules/.bin/tsx");
const temp = mkdtempSync(join(tmpdir(), "tw-data66-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe("blind held-out files of session 66", () => {
  it("names the four sets of session 66 and no older measured set whose name is close", () => {
    for (const name of [
      "korean-heldout21.locomo.json",
      "english-heldout21.locomo.json",
      "bench/fixtures/korean-facts-heldout28.labelled.json",
      "english-facts-heldout15.labelled.json",
    ])
      expect(isBlindFixture(name), name).toBe(true);
    // Older sets measured in sessions 59 and 60 whose names hold a blind number.
    for (const name of ["korean-facts-heldout21.labelled.json", "english-heldout15.locomo.json", "korean-heldout210.locomo.json"])
      expect(isBlindFixture(name), name).toBe(false);
    expect(BLIND_FIXTURES.length).toBe(new Set(BLIND_FIXTURES).size);
  });
});

const turn = (speaker: string, dia_id: string, text: string) => ({ speaker, dia_id, text });
const CASES = {
  en: {
    speakers: ["Mina", "Theo"],
    dates: ["1:56 pm on 8 May, 2023", "2:10 pm on 20 June, 2023"],
    unread: "the next evening",
    texts: ["I live in Seoul.", "Nice.", "I moved to Busan.", "Congrats!"],
    question: "Where does Mina live?",
  },
  ko: {
    speakers: ["민아", "태오"],
    // A Korean line, and one with the year last (two committed files write it so).
    dates: ["2023년 5월 8일 오후 1:56", "6월 20일 (화) 오후 2시 10분, 2023"],
    unread: "다음날 저녁",
    texts: ["저는 서울에 살아요.", "그렇구나.", "부산으로 이사했어요.", "축하해요!"],
    question: "민아는 어디 살아요?",
  },
} as const;

/** A two-session LoCoMo file of `c` with date lines `dates`. */
function locomoFile(name: string, c: (typeof CASES)[keyof typeof CASES], dates: readonly string[]): string {
  const [a, b] = c.speakers;
  const path = join(temp, name);
  const conversation = {
    speaker_a: a,
    speaker_b: b,
    session_1_date_time: dates[0],
    session_1: [turn(a, "D1:1", c.texts[0]), turn(b, "D1:2", c.texts[1])],
    session_2_date_time: dates[1],
    session_2: [turn(a, "D2:1", c.texts[2]), turn(b, "D2:2", c.texts[3])],
  };
  writeFileSync(
    path,
    JSON.stringify([{ sample_id: "m1", conversation, qa: [{ question: c.question, answer: "x", evidence: ["D2:1"], category: 4 }] }]),
  );
  return path;
}

describe("bench/user-memory.ts and a file's session date lines", () => {
  for (const [lang, c] of Object.entries(CASES)) {
    it(`${lang}: reads a file whose date lines all read, or none does`, () => {
      for (const dates of [c.dates, [c.unread, c.unread]]) {
        const path = locomoFile(`${lang}-${dates[0]}.json`, c, dates);
        expect(() => requireDateLines(loadLocomo(path), path)).not.toThrow();
      }
    });

    it(`${lang}: refuses a file that mixes a line it reads with one it cannot, naming the unread one`, () => {
      for (const [dates, field, said] of [
        [[c.dates[0], c.unread], "[0].conversation.session_2_date_time", `"${c.unread}" reads no date`],
        [["", c.dates[1]], "[0].conversation.session_1_date_time", "no date line"],
      ] as const) {
        const path = locomoFile(`${lang}-mixed-${field.length}-${said.length}.json`, c, dates);
        const error = refusal(() => requireDateLines(loadLocomo(path), path));
        expect(error.field).toBe(field);
        expect(error.message).toContain(said);
      }
    });
  }

  it("ends the bench with exit 2 naming the field, before any figure", { timeout: 180_000 }, async () => {
    const data = locomoFile("bench-mixed.json", CASES.ko, [CASES.ko.dates[0], CASES.ko.unread]);
    const failed = await run(TSX, ["bench/user-memory.ts", "--json", "--no-cost", "--data", data], { cwd: root, timeout: 170_000 }).then(
      () => undefined,
      (error: { code?: number; stdout?: string; stderr?: string }) => error,
    );
    expect(failed?.code).toBe(2);
    expect(failed?.stdout).toBe("");
    expect(failed?.stderr).toContain("[0].conversation.session_2_date_time");
  });

  it("reads the date lines of every committed LoCoMo file that is not blind", () => {
    const fixtures = resolve(root, "bench/fixtures");
    const names = readdirSync(fixtures).filter((name) => name.endsWith(".locomo.json") && !isBlindFixture(name));
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      const path = join(fixtures, name);
      expect(() => requireDateLines(loadLocomo(path), path), name).not.toThrow();
      // Every line reads (none of them falls back to the commit order).
      const conversations = loadLocomo(path);
      const unread = conversations.flatMap((conversation) => conversation.turns).filter((t) => t.dateTime === "");
      expect(unread, name).toEqual([]);
    }
  });
});
