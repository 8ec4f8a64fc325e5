/**
 * A benchmark's `--data` file of the wrong kind is refused with a typed error naming the first
 * field that does not fit (bench/support/data-file.ts), for the LoCoMo loader every LoCoMo bench
 * reads through and for the labelled-statements shape. The benches' exit code and one-line message
 * are checked by running them in test/benches.slow.test.ts.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { BenchOptionError, fieldPath, readDataFile } from "../bench/support/data-file.js";
import { loadLocomo, locomoThread, pickConversation, requireQuestions, selectSamples } from "../bench/support/locomo.js";
import { loadTauRuns } from "../bench/support/tau-runs.js";
import { LOCOMO_PATH, TAU_AIRLINE_PATH } from "../data/paths.js";
import { AIRLINE_SLICE_PATH, loadAirlineRuns } from "../examples/support/tau-replay.js";
import { refusal } from "./support/bench-refusal.js";

const root = resolve(import.meta.dirname, "..");
const temp = mkdtempSync(join(tmpdir(), "tw-bench-data-"));
const LABELLED = resolve(root, "bench/fixtures/korean-facts-heldout.labelled.json");

function fileWith(name: string, value: unknown): string {
  const path = join(temp, name);
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value));
  return path;
}

const sample = (conversation: Record<string, unknown>) => [{ sample_id: "s1", conversation, qa: [] }];

describe("loadLocomo on a file of another kind", () => {
  it("reads the committed LoCoMo file and the Korean fixtures", () => {
    expect(loadLocomo(LOCOMO_PATH)).toHaveLength(7);
    expect(loadLocomo(resolve(root, "bench/fixtures/korean-trip-chat.locomo.json"))[0]?.turns).toHaveLength(59);
    // The held-out set of 3 December 2026: a user with an assistant and two friends, every question's evidence a turn.
    const heldout2 = loadLocomo(resolve(root, "bench/fixtures/korean-heldout2.locomo.json"));
    expect(heldout2.map((c) => c.turns.length)).toEqual([60, 45]);
    expect(heldout2.flatMap((c) => c.qa).filter((q) => q.evidence.length === 0)).toEqual([]);
    // The fourth held-out set (session 39): a patient, a developer and a family chat.
    const heldout4 = loadLocomo(resolve(root, "bench/fixtures/korean-heldout4.locomo.json"));
    expect(heldout4.map((c) => c.turns.length)).toEqual([47, 48, 43]);
    expect(heldout4.flatMap((c) => c.qa).filter((q) => q.evidence.length === 0)).toEqual([]);
  });

  it("names the field of a tau-bench file, a labelled-statements file and a broken turn", () => {
    const tau = refusal(() => loadLocomo(TAU_AIRLINE_PATH));
    expect(tau.code).toBe("BENCH_DATA_SHAPE");
    expect(tau.field).toBe("[0].sample_id");
    expect(tau.message).toContain(`--data ${TAU_AIRLINE_PATH}: not a LoCoMo-format file: [0].sample_id:`);

    expect(refusal(() => loadLocomo(LABELLED)).field).toBe("(file)");

    const noSpeakers = refusal(() => loadLocomo(fileWith("no-speakers.json", sample({ session_1: [] }))));
    expect(noSpeakers.field).toBe("[0].conversation.speaker_a");

    const badTurn = fileWith(
      "bad-turn.json",
      sample({
        speaker_a: "A",
        speaker_b: "B",
        session_1: [
          { speaker: "A", dia_id: "D1:1", text: "hi" },
          { speaker: "B", dia_id: "D1:2" },
        ],
      }),
    );
    expect(refusal(() => loadLocomo(badTurn)).field).toBe("[0].conversation.session_1[1].text");

    const noSessions = fileWith("no-sessions.json", sample({ speaker_a: "A", speaker_b: "B", session_1_date_time: "today" }));
    expect(refusal(() => loadLocomo(noSessions)).field).toBe("[0].conversation.session_1");
  });

  it("refuses a file that is not JSON, and keeps a missing file's own error", () => {
    expect(refusal(() => loadLocomo(fileWith("text.json", "session_1: hi"))).field).toBe("(file)");
    expect(() => loadLocomo(join(temp, "absent.json"))).toThrow(/ENOENT/);
  });
});

describe("loadLocomo on files a reviewer writes", () => {
  it("refuses a file that holds no conversation", () => {
    const empty = refusal(() => loadLocomo(fileWith("empty.json", [])));
    expect(empty.field).toBe("(file)");
    expect(empty.message).toContain("empty.json: not a LoCoMo-format file: (file):");
  });

  it("refuses a conversation whose sessions hold no turn", () => {
    const twoSamples = [
      {
        sample_id: "s1",
        conversation: { speaker_a: "A", speaker_b: "B", session_1: [{ speaker: "A", dia_id: "D1:1", text: "hi" }] },
        qa: [],
      },
      { sample_id: "s2", conversation: { speaker_a: "A", speaker_b: "B", session_1: [], session_2: [] }, qa: [] },
    ];
    const error = refusal(() => loadLocomo(fileWith("no-turns.json", twoSamples)));
    expect(error.field).toBe("[1].conversation");
    expect(error.message).toContain("no-turns.json: not a LoCoMo-format file: [1].conversation: no turn in session_1, session_2");
  });

  it("reads a turn that is only an image as its caption, and refuses one with neither text nor caption", () => {
    const turns = (image: Record<string, unknown>) =>
      sample({
        speaker_a: "A",
        speaker_b: "B",
        session_1: [
          { speaker: "A", dia_id: "D1:1", text: "look" },
          { speaker: "A", dia_id: "D1:2", img_url: ["x.jpg"], ...image },
        ],
      });
    const [conversation] = loadLocomo(fileWith("image-only.json", turns({ blip_caption: "a photo of a dog" })));
    expect(conversation?.turns.map((t) => t.text)).toEqual(["look", "[image: a photo of a dog]"]);
    expect(refusal(() => loadLocomo(fileWith("no-text.json", turns({})))).field).toBe("[0].conversation.session_1[1].text");
  });
});

describe("a sample id the file does not hold", () => {
  // Was: a plain Error, which a bench printed as a stack trace with exit code 1.
  const path = resolve(root, "bench/fixtures/korean-trip-chat.locomo.json");
  const conversations = loadLocomo(path);
  const ids = conversations.map((c) => c.sampleId).join(", ");

  function optionRefusal(pick: () => unknown): BenchOptionError {
    try {
      pick();
    } catch (error) {
      if (error instanceof BenchOptionError) return error;
      throw error;
    }
    throw new Error("the sample was found");
  }

  it("--conversation is refused by a typed error naming the option and the ids the file holds", () => {
    const error = optionRefusal(() => pickConversation(conversations, "conv-26", path));
    expect(error.code).toBe("BENCH_OPTION");
    expect(error.option).toBe("--conversation");
    expect(error.message).toBe(`--conversation: no conversation conv-26 in ${path} (it holds ${ids})`);
  });

  it("--samples is refused the same way, naming the ids missing and those held", () => {
    const error = optionRefusal(() => selectSamples(conversations, `${conversations[0]?.sampleId},conv-26`));
    expect(error.option).toBe("--samples");
    expect(error.message).toBe(`--samples: no conversation conv-26 in the data file (it holds ${ids})`);
    expect(selectSamples(conversations, conversations[0]?.sampleId)).toHaveLength(1);
  });
});

describe("what a bench needs of a LoCoMo file", () => {
  const turn = (speaker: string, n: number) => ({ speaker, dia_id: `D1:${n}`, text: `turn ${n}` });
  const file = (name: string, speakers: string[], qa: unknown[] = []) =>
    fileWith(name, [{ sample_id: "s1", conversation: { speaker_a: "Marta", speaker_b: "Olu", session_1: speakers.map(turn) }, qa }]);

  it("refuses a turn whose speaker is neither speaker_a nor speaker_b", () => {
    const error = refusal(() => loadLocomo(file("third.json", ["Marta", "Olu", "Mrta"])));
    expect(error.field).toBe("[0].conversation.session_1[2].speaker");
    expect(error.message).toContain('"Mrta" is neither speaker_a ("Marta") nor speaker_b ("Olu")');
  });

  it("a replay bench refuses a conversation of one speaker: no model call to replay", () => {
    const path = file("one-speaker.json", ["Marta", "Marta"]);
    const error = refusal(() => pickConversation(loadLocomo(path), undefined, path));
    expect(error.field).toBe("[0].conversation");
    expect(error.message).toContain("s1: no turn of speaker_a (Marta) answered by speaker_b (Olu): nothing to replay");
    // The sized benches (overhead, step, scale) repeat the exchanges to a length: none would loop forever.
    expect(refusal(() => locomoThread(100, path)).message).toContain("one-speaker.json: not a LoCoMo-format file: (file): no turn of");
    const two = file("two-speakers.json", ["Marta", "Olu"]);
    expect(locomoThread(100, two)).toHaveLength(100);
    expect(pickConversation(loadLocomo(two), undefined, two).sampleId).toBe("s1");
  });

  it("a question bench refuses a file without a QA item that names a turn", () => {
    const none = file("no-qa.json", ["Marta", "Olu"], [{ question: "Where?", category: 4, evidence: ["D9:9"] }]);
    const error = refusal(() => requireQuestions(loadLocomo(none), none));
    expect(error.field).toBe("(file)");
    expect(error.message).toContain("no-qa.json: not a LoCoMo-format file: (file): no QA item with evidence turn ids in s1");
    const one = file("one-qa.json", ["Marta", "Olu"], [{ question: "Where?", category: 4, evidence: ["D1:1"] }]);
    expect(() => requireQuestions(loadLocomo(one), one)).not.toThrow();
  });
});

describe("loadTauRuns", () => {
  const run = (traj: unknown[]) => ({ task_id: 1, trial: 0, traj });
  const call = (args: string) => ({
    role: "assistant",
    content: null,
    tool_calls: [{ id: "c1", type: "function", function: { name: "get_order_details", arguments: args } }],
  });
  const good = [{ role: "system", content: "retail policy" }, { role: "user", content: "where is my order?" }, call('{"order_id":"#W1"}')];

  it("reads the airline file and runs of another domain, reward 0 where a run has none", () => {
    expect(loadTauRuns(TAU_AIRLINE_PATH)).toHaveLength(150);
    const [retail] = loadTauRuns(fileWith("retail.json", [run(good)]));
    expect(retail?.reward).toBe(0);
    expect(retail?.traj[2]?.tool_calls?.[0]?.function.name).toBe("get_order_details");
  });

  it("names the file and the entry of a run that does not fit", () => {
    const field = (value: unknown) => refusal(() => loadTauRuns(fileWith("runs.json", value)));
    const locomo = refusal(() => loadTauRuns(LOCOMO_PATH));
    expect(locomo.message).toContain(`--data ${LOCOMO_PATH}: not a tau-bench runs file: [0].traj:`);
    expect(field([]).field).toBe("(file)");
    expect(field({ runs: [] }).field).toBe("(file)");
    expect(field([run(good), { task_id: 2, trial: 0 }]).field).toBe("[1].traj");
    expect(field([run(good), run([{ content: "hi" }])]).field).toBe("[1].traj[0].role");
    const badArgs = field([run(good), run([...good, call('{"order_id": ')])]);
    expect(badArgs.field).toBe("[1].traj[3].tool_calls[0].function.arguments");
    expect(badArgs.message).toMatch(
      /runs\.json: not a tau-bench runs file: \[1\]\.traj\[3\]\.tool_calls\[0\]\.function\.arguments: not JSON/,
    );
    expect(field([run([...good, call("[1]")])]).field).toBe("[0].traj[3].tool_calls[0].function.arguments");
  });
});

// Was: examples' loader checked only that each entry had a `traj` array, so a run whose tool
// arguments are not JSON failed later, as a SyntaxError inside the replay.
describe("loadAirlineRuns (examples/support/tau-replay.ts) is the benchmarks' loader", () => {
  it("reads the committed slice and the airline file as loadTauRuns does", () => {
    expect(loadAirlineRuns()).toEqual(loadTauRuns(AIRLINE_SLICE_PATH));
    expect(loadAirlineRuns(TAU_AIRLINE_PATH)).toHaveLength(150);
  });

  it("refuses a run by the entry that does not fit", () => {
    const good = { task_id: 1, trial: 0, reward: 1, traj: [{ role: "user", content: "hi" }] };
    const broken = {
      ...good,
      traj: [
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: '{"a": ' } }] },
      ],
    };
    expect(refusal(() => loadAirlineRuns(fileWith("airline-broken.json", [good, broken]))).field).toBe(
      "[1].traj[0].tool_calls[0].function.arguments",
    );
    expect(refusal(() => loadAirlineRuns(fileWith("airline-role.json", [{ ...good, traj: [{ content: "hi" }] }]))).field).toBe(
      "[0].traj[0].role",
    );
  });
});

describe("readDataFile", () => {
  const labelled = z.object({ items: z.array(z.object({ text: z.string(), facts: z.array(z.unknown()) })) });

  it("names the field of a LoCoMo file given where labelled statements are read", () => {
    const error = refusal(() => readDataFile(labelled, LOCOMO_PATH, "labelled fact file"));
    expect(error.field).toBe("(file)");
    expect(error.message).toMatch(/not a labelled fact file: \(file\): .*object/);
    const missing = refusal(() => readDataFile(labelled, fileWith("items.json", { items: [{ text: "x" }] }), "labelled fact file"));
    expect(missing.field).toBe("items[0].facts");
  });

  it("writes zod's path as a field path", () => {
    expect(fieldPath([0, "conversation", "session_1", 2, "text"])).toBe("[0].conversation.session_1[2].text");
    expect(fieldPath(["items", 4, "facts"])).toBe("items[4].facts");
    expect(fieldPath([])).toBe("(file)");
  });
});
