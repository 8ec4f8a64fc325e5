/**
 * summarize's coverage check with an archive (issue 27): a covered message removed right after the
 * archived ones is a removal from the middle of the thread. A thread that never archived makes its
 * summary again (R37); so must the archive's, whose coverage check reads the archived messages
 * too. Found by the slow archive fuzz (seed 20261203 case 3): checked over the stored messages
 * only, the removal looked like a deletion from the thread's head (persistTrim's) and the old
 * summary was kept.
 */
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { Command } from "@langchain/langgraph";
import { messageText, SUMMARY_SLOT_KEY, type SummaryRecord } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { messageArchive } from "@threadwise/memory";
import { COVERED_DIGEST_CHARACTERS, summarize } from "@threadwise/summarize";
import type { AgentMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { runModelCall } from "./support/model-call.js";

const turn = (k: number) => [
  new HumanMessage({ id: `u${k}`, content: `user message ${k}: I like colour number ${k}.` }),
  new AIMessage({ id: `a${k}`, content: `Noted ${k}.` }),
];

/** One model call of a fresh `summarize` on `messages`; the summarizer's inputs and the summary written. */
async function call(messages: BaseMessage[], record: SummaryRecord | undefined, archived: BaseMessage[] | undefined) {
  const summarizer = scriptedModel((input: BaseMessage[]) => `summary of ${input.map((m) => messageText(m)).join(" / ").length} chars`, {
    strict: false,
  });
  const lines: string[] = [];
  const middleware = summarize({
    model: summarizer,
    windowSize: 2,
    threshold: 4,
    logger: { info: (line) => lines.push(line), warn: (line) => lines.push(line) },
    ...(archived ? { archived: async () => archived } : {}),
  });
  const { commands } = await runModelCall(
    [middleware],
    {
      messages,
      channels: record ? { [SUMMARY_SLOT_KEY]: { summary: record } } : {},
      systemMessage: new SystemMessage("S"),
      tools: [],
      configurable: { thread_id: "t" },
    },
    async () => new AIMessage("ok"),
  );
  const update = (commands as Command[]).map(
    (c) => (c.update as Record<string, { summary?: SummaryRecord }>)[SUMMARY_SLOT_KEY]?.summary,
  )[0];
  const inputs = summarizer.calls.map((c) => c.messages.map((m: BaseMessage) => messageText(m)).join("\n"));
  return { update, inputs, madeAgain: lines.some((line) => line.includes("a covered message changed")) };
}

describe("summarize's coverage check reads the archived messages (issue 27)", () => {
  it("a covered message removed right after the archive: the summary is made again, as without the archive", async () => {
    // The first summary, on a thread that never archived: it covers u0..a3 (the window is u4, a4, u5).
    const first = await call([...turn(0), ...turn(1), ...turn(2), ...turn(3), ...turn(4), ...turn(5).slice(0, 1)], undefined, undefined);
    const record = first.update as SummaryRecord;
    expect(record.coveredThroughId).toBe("a4");
    // Later: u0..a1 archived; u2 (covered, the first stored message) removed; a summary is due.
    const whole = [...turn(0), ...turn(1), ...turn(2), ...turn(3), ...turn(4), ...turn(5), ...turn(6), ...turn(7).slice(0, 1)];
    const removed = whole.filter((m) => m.id !== "u2");
    const archived = removed.slice(0, 4);
    const control = await call(removed, record, undefined);
    const withArchive = await call(removed.slice(4), record, archived);
    expect(control.madeAgain).toBe(true);
    expect(withArchive.madeAgain).toBe(true);
    expect(withArchive.inputs).toEqual(control.inputs);
    expect(withArchive.update).toEqual({ ...control.update, updatedAt: withArchive.update?.updatedAt });
  });

  // Found by the slow archive fuzz (seed 104 case 35): the summary's last covered message removed
  // (neither hot nor archived). Without the archive summarize takes the whole thread as uncovered
  // (its boundary gone, as after a deletion from the head) and goes on from its summary; with the
  // archive the check compared the archived messages with the covered ones and made the summary
  // again from the start, so the next requests' summary differed.
  it("the summary's last covered message removed: the whole thread is uncovered, with or without the archive", async () => {
    const first = await call([...turn(0), ...turn(1), ...turn(2), ...turn(3), ...turn(4), ...turn(5).slice(0, 1)], undefined, undefined);
    const record = first.update as SummaryRecord;
    expect(record.coveredThroughId).toBe("a4");
    const whole = [...turn(0), ...turn(1), ...turn(2), ...turn(3), ...turn(4), ...turn(5), ...turn(6), ...turn(7).slice(0, 1)];
    const removed = whole.filter((m) => m.id !== "a4");
    const control = await call(removed, record, undefined);
    const withArchive = await call(removed.slice(4), record, removed.slice(0, 4));
    expect(control.inputs.length).toBeGreaterThan(0);
    expect(withArchive.madeAgain).toBe(control.madeAgain);
    expect(withArchive.inputs).toEqual(control.inputs);
    expect(withArchive.update).toEqual({ ...control.update, updatedAt: withArchive.update?.updatedAt });
  });

  it("the summary's last covered message removed, in the background: the next call adopts the same summary, with or without the archive", async () => {
    const first = await call([...turn(0), ...turn(1), ...turn(2), ...turn(3), ...turn(4), ...turn(5).slice(0, 1)], undefined, undefined);
    const record = first.update as SummaryRecord;
    const whole = [...turn(0), ...turn(1), ...turn(2), ...turn(3), ...turn(4), ...turn(5), ...turn(6), ...turn(7), ...turn(8).slice(0, 1)];
    const removed = whole.filter((m) => m.id !== "a4");
    /** Two calls of one background `summarize`: the first prepares a summary after its answer, the second (one exchange later) adopts it. */
    const twoCalls = async (archived: BaseMessage[] | undefined) => {
      const summarizer = scriptedModel(
        (input: BaseMessage[]) => `summary of ${input.map((m) => messageText(m)).join(" / ").length} chars`,
        {
          strict: false,
        },
      );
      const middleware = summarize({
        model: summarizer,
        windowSize: 2,
        threshold: 4,
        background: true,
        logger: false,
        ...(archived ? { archived: async () => archived } : {}),
      });
      const at = (messages: BaseMessage[]) =>
        runModelCall(
          [middleware],
          {
            messages: archived ? messages.slice(archived.length) : messages,
            channels: { [SUMMARY_SLOT_KEY]: { summary: record } },
            systemMessage: new SystemMessage("S"),
            tools: [],
            configurable: { thread_id: "t" },
          },
          async () => new AIMessage("ok"),
        );
      await at(removed.slice(0, -3));
      // The job runs after the answer: wait until the summarizer was called, then for its answer to settle.
      for (let turns = 0; turns < 1000 && summarizer.calls.length === 0; turns += 1) await new Promise((resolve) => setImmediate(resolve));
      for (let turns = 0; turns < 10; turns += 1) await new Promise((resolve) => setImmediate(resolve));
      expect(summarizer.calls.length).toBeGreaterThan(0);
      const { commands } = await at(removed);
      const update = (commands as Command[]).map(
        (c) => (c.update as Record<string, { summary?: SummaryRecord }>)[SUMMARY_SLOT_KEY]?.summary,
      )[0];
      return { update, inputs: summarizer.calls.length };
    };
    const control = await twoCalls(undefined);
    const withArchive = await twoCalls(removed.slice(0, 4));
    expect(control.update?.coveredThroughId).toBeDefined();
    expect(withArchive.inputs).toBe(control.inputs);
    expect(withArchive.update).toEqual({ ...control.update, updatedAt: withArchive.update?.updatedAt });
  });

  it("nothing removed: the summary goes on from where it was, with or without the archive", async () => {
    const first = await call([...turn(0), ...turn(1), ...turn(2), ...turn(3), ...turn(4), ...turn(5).slice(0, 1)], undefined, undefined);
    const whole = [...turn(0), ...turn(1), ...turn(2), ...turn(3), ...turn(4), ...turn(5), ...turn(6), ...turn(7).slice(0, 1)];
    const control = await call(whole, first.update, undefined);
    const withArchive = await call(whole.slice(4), first.update, whole.slice(0, 4));
    expect(control.madeAgain).toBe(false);
    expect(withArchive.madeAgain).toBe(false);
    expect(withArchive.inputs).toEqual(control.inputs);
    // The same record, but for the digests: with the archive it keeps those of the newest archived
    // message and the covered stored ones only (the archived ones never change), a suffix of the
    // control's, and says so (`coveredArchived`); without, one per covered message of the thread.
    const digests = (record: SummaryRecord | undefined) => record?.coveredDigests ?? "";
    expect({ ...withArchive.update, coveredDigests: "" }).toEqual({
      ...control.update,
      updatedAt: withArchive.update?.updatedAt,
      coveredDigests: "",
      coveredArchived: true,
    });
    expect(control.update?.coveredArchived).toBeUndefined();
    expect(digests(control.update).endsWith(digests(withArchive.update))).toBe(true);
    expect(digests(withArchive.update).length).toBe(digests(control.update).length - 3 * COVERED_DIGEST_CHARACTERS);
  });
});

describe("messageArchive waits for summarize's first record (issue 27)", () => {
  // Regression (the slow archive fuzz, seed 102 case 9): on a thread's first call summarize has
  // written no record yet, and messageArchive took the missing record for a stack without
  // summarize: it archived unsummarized messages, and summarize's first trigger (the thread's
  // length) then counted the hot part only, a call later than a thread that never archived.
  it("the thread's first call moves nothing while summarize is in the stack; without summarize it does", async () => {
    const thread = [...turn(0), ...turn(1), ...turn(2), ...turn(3), ...turn(4).slice(0, 1)];
    const archiveWith = async (withSummarize: boolean) => {
      const written: BaseMessage[][] = [];
      const saver = {
        archiveMessages: async (_: string, messages: BaseMessage[]) => void written.push(messages),
        archivedMessages: async () => [],
      };
      const archive = messageArchive(saver as never, { keepGroups: 2, batchMessages: 2, alignMessages: 1, logger: false });
      const stack = withSummarize
        ? [summarize({ model: scriptedModel(() => "s", { strict: false }), windowSize: 2, threshold: 40, logger: false }), archive]
        : [archive];
      await runModelCall(
        stack as AgentMiddleware[],
        {
          messages: thread,
          channels: { [SUMMARY_SLOT_KEY]: {} },
          systemMessage: new SystemMessage("S"),
          tools: [],
          configurable: { thread_id: "t" },
        },
        async () => new AIMessage("ok"),
      );
      return written.flat().map((m) => m.id);
    };
    expect(await archiveWith(true)).toEqual([]);
    // Up to the answer before the newest kept user message (a3 stays hot, counted from u4 on).
    expect(await archiveWith(false)).toEqual(["u0", "a0", "u1", "a1", "u2", "a2", "u3"]);
  });

  // Issue 27: summarize checks the archived messages through the newest one only (they never
  // change), so an edited covered message must not be archived before a summary is made again:
  // once archived behind another, the check could no longer see the edit.
  it("moves nothing while a covered message differs from the summary's digests (edited, removed); the same thread unedited moves", async () => {
    const first = await call([...turn(0), ...turn(1), ...turn(2), ...turn(3), ...turn(4), ...turn(5).slice(0, 1)], undefined, undefined);
    const record = first.update as SummaryRecord;
    const thread = [...turn(0), ...turn(1), ...turn(2), ...turn(3), ...turn(4), ...turn(5), ...turn(6), ...turn(7).slice(0, 1)];
    const archiveOf = async (messages: BaseMessage[]) => {
      const written: BaseMessage[][] = [];
      const saver = {
        archiveMessages: async (_: string, moved: BaseMessage[]) => void written.push(moved),
        archivedMessages: async () => [],
      };
      await runModelCall(
        [messageArchive(saver as never, { keepGroups: 2, batchMessages: 2, alignMessages: 1, logger: false })],
        {
          messages,
          channels: { [SUMMARY_SLOT_KEY]: { summary: record } },
          systemMessage: new SystemMessage("S"),
          tools: [],
          configurable: { thread_id: "t" },
        },
        async () => new AIMessage("ok"),
      );
      return written.flat().map((m) => m.id);
    };
    // Everything before the summary's boundary (a4, which stays hot alone).
    expect(await archiveOf(thread)).toEqual(["u0", "a0", "u1", "a1", "u2", "a2", "u3", "a3", "u4"]);
    const edited = thread.map((m) => (m.id === "a1" ? new AIMessage({ id: "a1", content: "Noted, edited." }) : m));
    expect(await archiveOf(edited)).toEqual([]);
    expect(await archiveOf(thread.filter((m) => m.id !== "u1"))).toEqual([]);
  });
});
