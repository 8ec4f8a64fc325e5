/**
 * Benchmarks on input they were not tuned on (session 64, data64): the blind held-out files are
 * left out of the tools that read the committed data to tune (`bench/korean-words.ts`), and each
 * bench reads a hostile `--data` file (one session, an empty session, a 20,000-character turn,
 * Korean and English mixed, image and blob fields, QA items without `question`, `answer` or
 * `evidence`, a labelled file with no fact) either to figures or to exit code 2 with one line
 * naming the field. Small files written here; English and Korean text.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { hangulWords } from "../bench/korean-words.js";
import { BLIND_FIXTURES, isBlindFixture } from "../bench/support/blind.js";
import { LOCOMO_PATH, loadLocomo, locomoThread } from "../bench/support/locomo.js";
import { loadTauRuns } from "../bench/support/tau-runs.js";
import { refusal } from "./support/bench-refusal.js";

const temp = mkdtempSync(join(tmpdir(), "tw-data64-"));

describe("blind held-out files", () => {
  it("names every blind set of sessions 63 and 64 and no older measured set", () => {
    for (const name of [
      "korean-heldout18.locomo.json",
      "english-heldout19.locomo.json",
      "korean-heldout19.locomo.json",
      "korean-facts-heldout26.labelled.json",
      "english-facts-heldout13.labelled.json",
      "bench/fixtures/korean-facts-heldout25.labelled.json",
    ])
      expect(isBlindFixture(name), name).toBe(true);
    // Older sets whose names contain a blind number, measured in sessions 56, 57 and 61.
    for (const name of [
      "korean-facts-heldout18.labelled.json",
      "korean-facts-heldout19.labelled.json",
      "english-facts-heldout1.labelled.json",
      "korean-heldout190.locomo.json",
      "korean-heldout1.locomo.json",
    ])
      expect(isBlindFixture(name), name).toBe(false);
    expect(BLIND_FIXTURES.length).toBe(new Set(BLIND_FIXTURES).size);
  });

  it("korean-words reads the measured sets and skips the blind ones", () => {
    const dir = join(temp, "words");
    mkdirSync(join(dir, "nested"), { recursive: true });
    const write = (name: string, text: string) => writeFileSync(join(dir, name), JSON.stringify({ items: [{ text, facts: [] }] }));
    write("korean-facts-heldout19.labelled.json", "방앗간에서 가래떡을 뽑아요");
    write("korean-facts-heldout26.labelled.json", "참기름을 짜요");
    writeFileSync(join(dir, "nested", "korean-heldout19.locomo.json"), JSON.stringify([{ text: "송편을 빚어요 and rice cakes" }]));
    write("english-facts-heldout13.labelled.json", "쑥떡 is my favourite");
    const words = [...hangulWords([dir]).keys()];
    expect(words).toContain("방앗간에서");
    for (const blind of ["참기름을", "송편을", "쑥떡"]) expect(words).not.toContain(blind);
  });
});

/** A small LoCoMo file: two speakers, one session in English and Korean, the QA items given. */
function locomoFile(name: string, qa: unknown[], sessions?: Record<string, unknown>): string {
  const path = join(temp, name);
  const session_1 = [
    { speaker: "Mina", dia_id: "D1:1", text: "I moved to Daejeon last month for a lab job." },
    { speaker: "Theo", dia_id: "D1:2", text: "대전 어때요? 연구소 일은 재밌어요?" },
    { speaker: "Mina", dia_id: "D1:3", text: "네, 배터리 소재를 시험해요. I test cathode samples." },
  ];
  const conversation = { speaker_a: "Mina", speaker_b: "Theo", session_1_date_time: "1 May 2027", session_1, ...sessions };
  writeFileSync(path, JSON.stringify([{ sample_id: "h1", conversation, qa }]));
  return path;
}

describe("a LoCoMo file's QA items", () => {
  const item = (category: unknown) => ({
    question: "Where did Mina move? 민아는 어디로 이사했어요?",
    answer: "Daejeon",
    evidence: ["D1:1"],
    category,
  });

  it("reads the five LoCoMo categories", () => {
    const path = locomoFile("categories.json", [1, 2, 3, 4, 5].map(item));
    expect(loadLocomo(path)[0]?.qa.map((q) => q.category)).toEqual([1, 2, 3, 4, 5]);
  });

  it("refuses an empty or blank question, naming the item", () => {
    for (const [question, at] of [
      ["", 0],
      ["  \n ", 2],
    ] as const) {
      const qa = [item(4), item(2), item(5)];
      qa[at] = { ...item(4), question };
      const error = refusal(() => loadLocomo(locomoFile(`question-${at}.json`, qa)));
      expect(error.field).toBe(`[0].qa[${at}].question`);
      expect(error.message).toContain("no question to ask");
    }
  });

  it("refuses a category no bench tables, naming the item (it counted in `all` and in no row)", () => {
    for (const [category, at] of [
      [9, 1],
      [0, 0],
      [2.5, 2],
      [-4, 1],
    ] as const) {
      const qa = [item(4), item(2), item(5)];
      qa[at] = item(category);
      const error = refusal(() => loadLocomo(locomoFile(`category-${category}.json`, qa)));
      expect(error.field, String(category)).toBe(`[0].qa[${at}].category`);
      expect(error.message).toContain("expected 1-5");
    }
  });
});

describe("a LoCoMo file's ids", () => {
  const qa = [{ question: "Where did Mina move? 민아는 어디로 이사했어요?", answer: "Daejeon", evidence: ["D1:1"], category: 4 }];
  const turn = (speaker: string, dia_id: string, text: string) => ({ speaker, dia_id, text });

  it("refuses a turn id used twice in a conversation, naming the second turn", () => {
    const across = locomoFile("dup-across.json", qa, {
      session_2: [turn("Mina", "D2:1", "The concert is on the 14th."), turn("Theo", "D1:1", "콘서트 꼭 갈게요!")],
    });
    const error = refusal(() => loadLocomo(across));
    expect(error.field).toBe("[0].conversation.session_2[1].dia_id");
    expect(error.message).toContain("session_1[0]");

    // `D01:1` is `D1:1` once normalized: evidence `D1:1` would name both.
    const padded = locomoFile("dup-padded.json", qa, { session_2: [turn("Mina", "D01:1", "다음 주에 부산 출장 가요.")] });
    expect(refusal(() => loadLocomo(padded)).field).toBe("[0].conversation.session_2[0].dia_id");

    const within = locomoFile("dup-within.json", qa, {
      session_1: [turn("Mina", "D1:1", "I moved to Daejeon."), turn("Theo", "D1:1", "대전 좋죠.")],
    });
    expect(refusal(() => loadLocomo(within)).field).toBe("[0].conversation.session_1[1].dia_id");
  });

  it("refuses a sample id used twice (the conversations would share threads and scopes)", () => {
    const one = JSON.parse(readFileSync(locomoFile("one.json", qa), "utf8"))[0];
    const path = join(temp, "dup-sample.json");
    writeFileSync(path, JSON.stringify([one, { ...one, qa: [] }, one]));
    expect(refusal(() => loadLocomo(path)).field).toBe("[1].sample_id");
  });

  it("reads every committed LoCoMo file but the blind ones", () => {
    const fixtures = resolve(import.meta.dirname, "../bench/fixtures");
    const files = readdirSync(fixtures).filter((name) => name.endsWith(".locomo.json") && !isBlindFixture(name));
    expect(files.length).toBeGreaterThan(10);
    for (const name of files) expect(loadLocomo(join(fixtures, name)).length, name).toBeGreaterThan(0);
    // The default file (LoCoMo dev): every conversation it holds is read.
    expect(loadLocomo().length).toBe((JSON.parse(readFileSync(LOCOMO_PATH, "utf8")) as unknown[]).length);
  });
});

describe("a tau-bench runs file's runs", () => {
  const traj = [
    { role: "system", content: "You are an airline agent. 정책을 따르세요." },
    { role: "user", content: "I need to move my flight to Busan. 다음 주 금요일로 바꿔 주세요." },
    { role: "assistant", content: "Done: your flight is now on Friday." },
  ];
  const runsFile = (name: string, keys: Array<[number, number]>) => {
    const path = join(temp, name);
    writeFileSync(path, JSON.stringify(keys.map(([task_id, trial]) => ({ task_id, trial, reward: 1, traj }))));
    return path;
  };

  it("reads runs of one task over several trials and of several tasks in one trial", () => {
    expect(
      loadTauRuns(
        runsFile("distinct.json", [
          [1, 0],
          [1, 1],
          [2, 0],
        ]),
      ),
    ).toHaveLength(3);
  });

  it("refuses a run whose task_id and trial an earlier run has (one replayed thread for both)", () => {
    const error = refusal(() =>
      loadTauRuns(
        runsFile("duplicate.json", [
          [1, 0],
          [2, 0],
          [1, 1],
          [2, 0],
        ]),
      ),
    );
    expect(error.field).toBe("[3].task_id");
    expect(error.message).toContain("run [1]");
  });
});

describe("a refusal names the option that gave the file", () => {
  it("is --data by default and --locomo for token-cap's LoCoMo file", () => {
    const path = join(temp, "one-speaker.json");
    const session_1 = [{ speaker: "Mina", dia_id: "D1:1", text: "메모: buy cello strings" }];
    writeFileSync(path, JSON.stringify([{ sample_id: "h1", conversation: { speaker_a: "Mina", speaker_b: "Theo", session_1 }, qa: [] }]));
    const error = refusal(() => locomoThread(1, path));
    expect(error.option).toBe("--data");
    expect(error.message).toMatch(/^--data .*one-speaker\.json: not a LoCoMo-format file: \(file\): no turn of a speaker_a/);
    const locomo = error.forOption("--locomo");
    expect(locomo.option).toBe("--locomo");
    expect(locomo.field).toBe("(file)");
    expect(locomo.message).toBe(error.message.replace(/^--data /, "--locomo "));
  });
});
