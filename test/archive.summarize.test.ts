/**
 * summarize with an archive (issue 27): a summary made again from the start (a covered message
 * was edited, R37) covers the archived messages too, read through the `archived` option, as a
 * thread that never archived would; without the option it can cover only the stored messages.
 */
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { messageText, SUMMARY_SLOT_KEY } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { summarize } from "@threadwise/summarize";
import { describe, expect, it } from "vitest";
import { runModelCall } from "./support/model-call.js";

const archived = [
  new HumanMessage({ id: "u1", content: "My sister Hana lives in Jeju." }),
  new AIMessage({ id: "a1", content: "Noted." }),
  new HumanMessage({ id: "u2", content: "I drive a blue van." }),
  new AIMessage({ id: "a2", content: "Noted." }),
];
const stored = [
  new HumanMessage({ id: "u3", content: "I play the cello." }),
  // Edited in place after the summary covered it: the record's digests no longer match.
  new AIMessage({ id: "a3", content: "Noted (edited)." }),
  new HumanMessage({ id: "u4", content: "I like tea." }),
  new AIMessage({ id: "a4", content: "Noted." }),
  new HumanMessage({ id: "u5", content: "I moved last year." }),
  new AIMessage({ id: "a5", content: "Noted." }),
  new HumanMessage({ id: "u6", content: "What do you know about me?" }),
];
const record = {
  text: "The user has a sister, Hana, in Jeju, drives a blue van and plays the cello.",
  coveredThroughId: "a3",
  coveredCount: 6,
  updatedAt: new Date(0).toISOString(),
  coveredDigests: "AAAAAAAA".repeat(6),
};

async function summarizerInput(withArchive: boolean): Promise<string> {
  const summarizer = scriptedModel(() => "made again", { strict: false });
  const middleware = summarize({
    model: summarizer,
    windowSize: 2,
    threshold: 4,
    logger: false,
    ...(withArchive ? { archived: async (threadId: string) => (threadId === "t" ? archived : []) } : {}),
  });
  await runModelCall(
    [middleware],
    {
      messages: stored,
      channels: { [SUMMARY_SLOT_KEY]: { summary: record } },
      systemMessage: new SystemMessage("S"),
      tools: [],
      configurable: { thread_id: "t" },
    },
    async () => new AIMessage("ok"),
  );
  expect(summarizer.calls.length).toBeGreaterThan(0);
  return summarizer.calls.map((call) => call.messages.map((m: BaseMessage) => messageText(m)).join("\n")).join("\n");
}

describe("summarize reads the archive when it summarizes again from the start", () => {
  it("covers the archived messages with `archived`, only the stored ones without", async () => {
    const whole = await summarizerInput(true);
    expect(whole).toContain("Hana lives in Jeju");
    expect(whole).toContain("blue van");
    expect(whole).toContain("Noted (edited).");
    const storedOnly = await summarizerInput(false);
    expect(storedOnly).not.toContain("Hana lives in Jeju");
    expect(storedOnly).toContain("Noted (edited).");
  });
});

// R37, langgraphjs#1211: the summary stands or falls with the newest message it covers. Here it is
// `a2`: archived (the summary stays), else gone; persistTrim's mark naming `u2` (the newest
// covered user message) says persistTrim took it (stays); otherwise a user's removal took it: not placed.
describe("a summary whose boundary is no longer stored", () => {
  const hot = stored.slice(2);
  const boundaryRecord = {
    text: "Sister Hana in Jeju; a blue van. 여동생 하나는 제주에 살아요.",
    coveredThroughId: "a2",
    coveredCount: 4,
    updatedAt: new Date(0).toISOString(),
    coveredUserId: "u2",
  };
  async function placed(options: { archivedMessages?: BaseMessage[]; trimmed?: { taken: string[]; before: string | null } }) {
    const summarizer = scriptedModel(() => "made again", { strict: false });
    const middleware = summarize({
      model: summarizer,
      windowSize: 2,
      threshold: 40,
      logger: false,
      ...(options.archivedMessages ? { archived: async () => options.archivedMessages as BaseMessage[] } : {}),
    });
    let system = "";
    let sent: BaseMessage[] = [];
    await runModelCall(
      [middleware],
      {
        messages: hot,
        channels: { [SUMMARY_SLOT_KEY]: { summary: boundaryRecord, ...(options.trimmed ? { trimmed: options.trimmed } : {}) } },
        systemMessage: new SystemMessage("S"),
        tools: [],
        configurable: { thread_id: "t" },
      },
      async (request) => {
        system = request.systemMessage.text;
        sent = request.messages;
        return new AIMessage("ok");
      },
    );
    // Whatever is placed, every stored message the summary does not cover is sent.
    for (const m of hot.filter((x) => x.getType() !== "system")) expect(sent.map((x) => x.id)).toContain(m.id);
    return system.includes(boundaryRecord.text);
  }

  it("archived: placed", async () => {
    expect(await placed({ archivedMessages: archived })).toBe(true);
  });
  it("taken by persistTrim (its mark names the newest covered user message): placed", async () => {
    expect(await placed({ trimmed: { taken: ["u1", "u2"], before: null } })).toBe(true);
    expect(await placed({ trimmed: { taken: [], before: "u2" } })).toBe(true);
  });
  it("removed by the user (not archived, not named by the mark): not placed", async () => {
    expect(await placed({})).toBe(false);
    expect(await placed({ archivedMessages: [] })).toBe(false);
    expect(await placed({ trimmed: { taken: ["u1"], before: null } })).toBe(false);
  });
  it("a record without coveredUserId (written before it existed): placed, as before", async () => {
    const { coveredUserId: _, ...old } = boundaryRecord;
    const summarizer = scriptedModel(() => "made again", { strict: false });
    let system = "";
    await runModelCall(
      [summarize({ model: summarizer, windowSize: 2, threshold: 40, logger: false })],
      {
        messages: hot,
        channels: { [SUMMARY_SLOT_KEY]: { summary: old } },
        systemMessage: new SystemMessage("S"),
        tools: [],
        configurable: { thread_id: "t" },
      },
      async (request) => {
        system = request.systemMessage.text;
        return new AIMessage("ok");
      },
    );
    expect(system).toContain(old.text);
  });
});
