/**
 * Benchmarks on input they were not tuned on (session 65, data65): the blind held-out files of
 * session 65 are left out of the tools that read the committed data to tune; a tau-bench runs file
 * whose message content is an array of content parts (OpenAI-format and Anthropic-format exports)
 * is replayed as its string form would be, and a hostile one is refused naming the part; a LoCoMo
 * file with date lines in other formats, sessions out of order, speakers renamed mid-file and
 * answers that are numbers or lists is read to figures or refused naming the field. Small files
 * written here; English and Korean text.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { contentText } from "@threadwise/core";
import { describe, expect, it } from "vitest";
import { tauReplay } from "../bench/cost.js";
import { BLIND_FIXTURES, isBlindFixture } from "../bench/support/blind.js";
import { loadLocomo } from "../bench/support/locomo.js";
import { loadTauRuns } from "../bench/support/tau-runs.js";
import { replayScript, runMessages } from "../examples/support/tau-replay.js";
import { refusal } from "./support/bench-refusal.js";

const temp = mkdtempSync(join(tmpdir(), "tw-data65-"));

describe("blind held-out files of session 65", () => {
  it("names the four sets of session 65 and no older measured set whose name is close", () => {
    for (const name of [
      "korean-heldout20.locomo.json",
      "english-heldout20.locomo.json",
      "bench/fixtures/korean-facts-heldout27.labelled.json",
      "english-facts-heldout14.labelled.json",
    ])
      expect(isBlindFixture(name), name).toBe(true);
    // Older sets measured in sessions 58 and 59 whose names hold a blind number.
    for (const name of ["korean-facts-heldout20.labelled.json", "english-heldout14.locomo.json", "korean-heldout200.locomo.json"])
      expect(isBlindFixture(name), name).toBe(false);
    expect(BLIND_FIXTURES.length).toBe(new Set(BLIND_FIXTURES).size);
  });
});

/** A runs file of one run (task 1, trial 0) with `traj`. */
function runsFile(name: string, traj: unknown[]): string {
  const path = join(temp, name);
  writeFileSync(path, JSON.stringify([{ task_id: 1, trial: 0, reward: 1, traj }]));
  return path;
}

const text = (t: string) => ({ type: "text", text: t });
const POLICY = "You are an airline agent. 정책을 따르세요.";
const ASK = ["I need to move my flight to Busan. ", "다음 주 금요일로 바꿔 주세요."];
const ARGS = { reservation_id: "ABC123", 날짜: "2027-05-14" };
const RESULT = '{"flights": [{"flight_number": "HAT170", "destination": "부산"}]}';

/** One run in plain OpenAI form: string contents, `tool_calls`, a `tool` message. */
const plain = [
  { role: "system", content: POLICY },
  { role: "user", content: ASK.join("") },
  {
    role: "assistant",
    content: "Let me look. 확인할게요.",
    tool_calls: [{ id: "c1", type: "function", function: { name: "get_reservation_details", arguments: JSON.stringify(ARGS) } }],
  },
  { role: "tool", tool_call_id: "c1", name: "get_reservation_details", content: RESULT },
  { role: "assistant", content: "Done: your flight is now on Friday. 금요일로 바꿨어요." },
];

describe("a tau-bench run whose message content is content parts", () => {
  it("keeps a run in the string form as the file holds it", () => {
    expect(loadTauRuns(runsFile("plain.json", plain))[0]?.traj).toEqual(plain);
  });

  it("reads OpenAI-format parts as the string form: text parts joined as LangChain's `.text` reads them", () => {
    const parts = [
      { role: "system", content: [text(POLICY)] },
      { role: "user", content: ASK.map(text) },
      { ...plain[2], content: [text("Let me look. "), text("확인할게요.")] },
      { ...plain[3], content: [text(RESULT)] },
      { role: "assistant", content: [text("Done: your flight is now on Friday. 금요일로 바꿨어요.")] },
    ];
    const [run] = loadTauRuns(runsFile("openai-parts.json", parts));
    expect(run?.traj).toEqual(plain);
    // The text a model is sent for the parts: core's reading of LangChain content blocks.
    expect(run?.traj[1]?.content).toBe(contentText(ASK.map(text)));
    expect(runMessages(run!, 0).map((m) => m.content)).toEqual(plain.map((m) => m.content));
  });

  it("reads Anthropic-format tool_use and tool_result parts as the tool calls and tool messages a model is sent", () => {
    const parts = [
      { role: "system", content: POLICY },
      { role: "user", content: ASK.map(text) },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "The user wants Friday; look the booking up first.", signature: "sig" },
          text("Let me look. 확인할게요."),
          { type: "tool_use", id: "c1", name: "get_reservation_details", input: ARGS },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "c1", content: [text(RESULT)] }] },
      { role: "assistant", content: [text("Done: your flight is now on Friday. 금요일로 바꿨어요.")] },
    ];
    const path = runsFile("anthropic-parts.json", parts);
    const [run] = loadTauRuns(path);
    expect(run?.traj).toEqual(plain);
    const script = replayScript(run!);
    expect(script).toEqual(replayScript(loadTauRuns(runsFile("plain-again.json", plain))[0]!));
    expect(script.turns).toHaveLength(1);
    expect(script.toolResults.get("get_reservation_details")).toEqual([RESULT]);
    expect(tauReplay(path).threads).toEqual(tauReplay(runsFile("plain-cost.json", plain)).threads);
  });

  it("keeps a user's text beside its tool results, and reads media parts as placeholders", () => {
    const parts = [
      {
        role: "user",
        content: [text("Here is my boarding pass: "), { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }],
      },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "lookup", input: {} }] },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: "좌석 12A" },
          text("창가 자리 맞죠? Is it a window seat?"),
          { type: "input_audio", input_audio: { data: "AAAA", format: "wav" } },
        ],
      },
      { role: "assistant", content: [{ type: "refusal", refusal: "I can't confirm that." }] },
    ];
    const traj = loadTauRuns(runsFile("mixed.json", parts))[0]?.traj;
    expect(traj).toEqual([
      { role: "user", content: "Here is my boarding pass: [image]" },
      { role: "assistant", content: "", tool_calls: [{ id: "t1", type: "function", function: { name: "lookup", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "t1", name: "lookup", content: "좌석 12A" },
      { role: "user", content: "창가 자리 맞죠? Is it a window seat?[audio]" },
      { role: "assistant", content: "I can't confirm that." },
    ]);
  });

  it("refuses a hostile part in one line naming its field", () => {
    const call = { type: "tool_use", id: "c1", name: "get_reservation_details", input: ARGS };
    const cases: Array<[string, unknown, string]> = [
      ["user", 42, "[0].traj[1].content"],
      ["user", { text: "hi" }, "[0].traj[1].content"],
      ["user", ["hi"], "[0].traj[1].content[0]"],
      ["user", [text("안녕"), null], "[0].traj[1].content[1]"],
      ["user", [{ type: "text", text: 7 }], "[0].traj[1].content[0].text"],
      ["user", [{ text: "no type" }], "[0].traj[1].content[0].type"],
      ["user", [{ type: "video", url: "x" }], "[0].traj[1].content[0].type"],
      ["user", [call], "[0].traj[1].content[0].type"],
      ["system", [{ type: "thinking", thinking: "정책" }], "[0].traj[1].content[0].type"],
      ["assistant", [{ ...call, name: "" }], "[0].traj[1].content[0].name"],
      ["assistant", [{ ...call, id: 3 }], "[0].traj[1].content[0].id"],
      ["assistant", [{ ...call, input: ["ABC123"] }], "[0].traj[1].content[0].input"],
      ["assistant", [{ ...call, input: '{"reservation_id": "ABC123"}' }], "[0].traj[1].content[0].input"],
      ["assistant", [{ type: "tool_result", tool_use_id: "c1", content: "ok" }], "[0].traj[1].content[0].type"],
      ["user", [{ type: "tool_result", tool_use_id: "c9", content: "ok" }], "[0].traj[1].content[0].tool_use_id"],
      ["user", [{ type: "tool_result", content: "ok" }], "[0].traj[1].content[0].tool_use_id"],
      ["user", [{ type: "tool_result", tool_use_id: "c0", content: 7 }], "[0].traj[1].content[0].content"],
      [
        "user",
        [{ type: "tool_result", tool_use_id: "c0", content: [{ type: "tool_use", id: "x", name: "y", input: {} }] }],
        "[0].traj[1].content[0].content[0].type",
      ],
    ];
    for (const [n, [role, content, field]] of cases.entries()) {
      const earlierCall = {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c0", type: "function", function: { name: "search", arguments: "{}" } }],
      };
      const error = refusal(() => loadTauRuns(runsFile(`hostile-${n}.json`, [earlierCall, { role, content }])));
      expect(error.field, JSON.stringify(content)).toBe(field);
      expect(error.message).not.toContain("\n");
      expect(error.message).toMatch(/^--data .*: not a tau-bench runs file: /);
    }
  });
});

/** A LoCoMo file of one conversation (Mina and Theo, English and Korean) with `conversation` fields over the default ones. */
function locomoFile(name: string, conversation: Record<string, unknown>, qa: unknown[] = QA): string {
  const path = join(temp, name);
  writeFileSync(path, JSON.stringify([{ sample_id: "m1", conversation: { ...CONVERSATION, ...conversation }, qa }]));
  return path;
}
const turn = (speaker: string, dia_id: string, text: string) => ({ speaker, dia_id, text });
const CONVERSATION = {
  speaker_a: "Mina",
  speaker_b: "Theo",
  session_1_date_time: "1:56 pm on 8 May, 2023",
  session_1: [
    turn("Mina", "D1:1", "I moved to Daejeon for a battery lab job."),
    turn("Theo", "D1:2", "대전 어때요? 연구소 일은 재밌어요?"),
  ],
  session_2_date_time: "2:10 pm on 20 June, 2023",
  session_2: [turn("Mina", "D2:1", "저 다음 달에 부산으로 출장 가요."), turn("Theo", "D2:2", "My sister lives in Busan.")],
  session_3_date_time: "9:00 am on 2 July, 2023",
  session_3: [turn("Mina", "D3:1", "I joined a startup in Pangyo. 판교로 이직했어요."), turn("Theo", "D3:2", "축하해요!")],
};
const QA = [
  { question: "Where did Mina move? 민아는 어디로 이사했어요?", answer: "Daejeon", evidence: ["D1:1"], category: 4 },
  { question: "Where does Theo's sister live?", answer: "Busan", evidence: ["D2:2"], category: 4 },
];

describe("a LoCoMo file the benches were not tuned on", () => {
  it("keeps a date line in any format as written (the benches place it as the turn's timestamp)", () => {
    for (const dates of [
      ["2023-05-08", "2023-06-20", "2023-07-02"],
      ["8 May, 2023", "20 June, 2023", "2 July, 2023"],
      ["2023년 5월 8일", "2023년 6월 20일 화요일 오후 2:10", "2023.07.02 (일)"],
    ]) {
      const path = locomoFile(`dates-${dates[0]}.json`, Object.fromEntries(dates.map((d, i) => [`session_${i + 1}_date_time`, d])));
      const [conversation] = loadLocomo(path);
      expect(conversation?.turns.map((t) => t.dateTime)).toEqual(dates.flatMap((d) => [d, d]));
    }
    // Absent or null: no date line (recall and user-memory then place the turn by order alone).
    const [none] = loadLocomo(locomoFile("dates-none.json", { session_1_date_time: null, session_2_date_time: undefined }));
    expect(none?.turns.map((t) => t.dateTime).slice(0, 4)).toEqual(["", "", "", ""]);
  });

  it("refuses a date line that is not a string, naming it (it was read as `20230620` or `[object Object]`)", () => {
    for (const [date, received] of [
      [20230620, "number"],
      [{ year: 2023, month: 6, day: 20 }, "object"],
      [["2023-06-20"], "array"],
    ] as const) {
      const error = refusal(() => loadLocomo(locomoFile(`date-${received}.json`, { session_2_date_time: date })));
      expect(error.field).toBe("[0].conversation.session_2_date_time");
      expect(error.message).toContain(`a string, received ${received}`);
    }
  });

  it("reads sessions by their numbers whatever their order in the file, their dates or gaps", () => {
    const inOrder = loadLocomo(locomoFile("in-order.json", {}))[0]?.turns;
    const { session_1, session_2, session_3, session_1_date_time, session_2_date_time, session_3_date_time } = CONVERSATION;
    const path = join(temp, "out-of-order.json");
    const shuffled = {
      speaker_a: "Mina",
      speaker_b: "Theo",
      session_3,
      session_3_date_time,
      session_1_date_time,
      session_2,
      session_1,
      session_2_date_time,
    };
    writeFileSync(path, JSON.stringify([{ sample_id: "m1", conversation: shuffled, qa: QA }]));
    expect(loadLocomo(path)[0]?.turns).toEqual(inOrder);
    // Dates that run backwards are kept as written, the sessions in number order.
    const backwards = loadLocomo(
      locomoFile("backwards.json", { session_1_date_time: "2 July, 2023", session_3_date_time: "8 May, 2023" }),
    )[0];
    expect(backwards?.turns.map((t) => `${t.diaId} ${t.dateTime}`)).toEqual([
      "D1:1 2 July, 2023",
      "D1:2 2 July, 2023",
      "D2:1 2:10 pm on 20 June, 2023",
      "D2:2 2:10 pm on 20 June, 2023",
      "D3:1 8 May, 2023",
      "D3:2 8 May, 2023",
    ]);
  });

  it("refuses a speaker renamed mid-file, naming the turn, and two speakers of one name, naming speaker_b", () => {
    const renamed = locomoFile("renamed.json", {
      session_3: [turn("민아", "D3:1", "판교로 이직했어요."), turn("Theo", "D3:2", "축하해요!")],
    });
    const error = refusal(() => loadLocomo(renamed));
    expect(error.field).toBe("[0].conversation.session_3[0].speaker");
    expect(error.message).toContain('"민아" is neither speaker_a ("Mina") nor speaker_b ("Theo")');
    // Was: refused at the first of Theo's turns as "neither speaker_a (Mina) nor speaker_b (Mina)",
    // or, when every turn is Mina's, read as a conversation of one speaker.
    for (const session_1 of [CONVERSATION.session_1, [turn("Mina", "D1:1", "메모: 첼로 줄 사기")]]) {
      const same = refusal(() =>
        loadLocomo(locomoFile(`same-${session_1.length}.json`, { speaker_b: "Mina", session_1, session_2: [], session_3: [] })),
      );
      expect(same.field).toBe("[0].conversation.speaker_b");
      expect(same.message).toContain('"Mina" is also speaker_a');
    }
  });

  it("keeps an answer that is a number, a list or an object as it is (no bench reads it as text)", () => {
    const answers = [3, ["Busan", "부산"], { city: "Busan" }, true];
    const qa = answers.map((answer, i) => ({ ...QA[i % 2], answer }));
    expect(loadLocomo(locomoFile("answers.json", {}, qa))[0]?.qa.map((q) => q.answer)).toEqual(answers);
  });
});
