/**
 * Benchmarks on input they were not tuned on (session 65, data65): the blind held-out files of
 * session 65 are left out of the tools that read the committed data to tune; a tau-bench runs file
 * whose message content is an array of content parts (OpenAI-format and Anthropic-format exports)
 * is replayed as its string form would be, and a hostile one is refused naming the part. Small
 * files written here; English and Korean text.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { contentText } from "@threadwise/core";
import { describe, expect, it } from "vitest";
import { tauReplay } from "../bench/cost.js";
import { BLIND_FIXTURES, isBlindFixture } from "../bench/support/blind.js";
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
