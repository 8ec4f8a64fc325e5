/**
 * persistTrim's and the archive's trim mark (R37, breaker30b's finding 2): on `memoryStack`, a user
 * message that left the stored thread through persistTrim or the archive keeps its facts (in the
 * thread, factRecall; in the user's other threads, userMemory), and one the user removed with
 * `RemoveMessage` (the thread's oldest stored user messages) takes them with it: recalled nowhere.
 * The same with the archive on and off, persistTrim on and off, on MemorySaver and SQLite, in
 * English and Korean.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BaseMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { messageText, readSummarySlot } from "@threadwise/core";
import { strictModel } from "@threadwise/core/testing";
import { FACTS_STATE_KEY, type FactSlot } from "@threadwise/fact-recall";
import { memoryStack, type ThreadwiseSaver } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "threadwise-trim-marks-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LANGUAGES = {
  en: {
    kept: "My sister Hana lives in Jeju.",
    keptValue: "Jeju",
    removed: "My brother Minho lives in Daegu.",
    removedValue: "Daegu",
    filler: (k: number) => `It rained all day, day ${k}.`,
    question: "Where do Hana and Minho live?",
  },
  ko: {
    kept: "제 여동생 하나는 제주에 살아요.",
    keptValue: "제주",
    removed: "제 남동생 민호는 대구에 살아요.",
    removedValue: "대구",
    filler: (k: number) => `${k}일째 하루 종일 비가 왔어요.`,
    question: "하나랑 민호는 어디 살아요?",
  },
} as const;

const STACKS = [
  { name: "persistTrim, archive off", archive: false, persistTrimKeepGroups: 4 },
  { name: "archive on", archive: true, persistTrimKeepGroups: undefined },
  { name: "persistTrim and archive on", archive: true, persistTrimKeepGroups: 8 },
] as const;

describe.each(["in_memory", "sqlite"] as const)("trim marks on %s (R37)", (backend) => {
  describe.each(STACKS)("$name", ({ archive, persistTrimKeepGroups }) => {
    it.each(["en", "ko"] as const)(
      "%s: what a trim or the archive took keeps its facts; the oldest stored messages removed drop theirs",
      async (lang) => {
        const text = LANGUAGES[lang];
        const sqlitePath = join(dir, `${archive}-${persistTrimKeepGroups ?? 0}-${lang}.sqlite`);
        const model = strictModel({ answer: (_m, call) => `Noted, answer ${call}.` });
        const stack = memoryStack({
          env: {},
          backend,
          ...(backend === "sqlite" ? { sqlitePath } : {}),
          archive,
          ...(persistTrimKeepGroups !== undefined ? { persistTrimKeepGroups } : {}),
          windowSize: 2,
          summarize: false,
          factsMode: "heuristic",
          recallMaxTokens: false,
          userMemory: true,
          logger: false,
        });
        const agent = createAgent({ model, systemPrompt: "S", ...stack });
        const t1 = { configurable: { thread_id: "t1", user_id: "u1" } };
        const turn = (id: string, content: string) => agent.invoke({ messages: [new HumanMessage({ id, content })] }, t1);
        const hot = async () => (await agent.graph.getState(t1)).values.messages as BaseMessage[];

        // The fact to keep, fillers until it has left the stored thread, then the fact to remove.
        await turn("kept", text.kept);
        for (let k = 1; k <= 8; k += 1) await turn(`f${k}`, text.filler(k));
        await turn("removed", text.removed);
        const stored = await hot();
        expect(stored.some((m) => m.id === "kept")).toBe(false);
        // Its mark: persistTrim's in the summary slot, or the archive's row.
        const marked = readSummarySlot((await agent.graph.getState(t1)).values).trimmed?.taken.includes("kept") === true;
        const archived = archive ? await (stack.checkpointer as ThreadwiseSaver).archivedAmong("t1", ["kept"]) : [];
        expect(marked || archived.length === 1).toBe(true);
        if (!archive) expect(marked).toBe(true);
        // The user removes the thread's oldest stored user messages, the one with the fact among them.
        const users = stored.filter((m) => m.getType() === "human");
        const upTo = users.findIndex((m) => m.id === "removed");
        expect(upTo).toBeGreaterThanOrEqual(0);
        await agent.graph.updateState(t1, { messages: users.slice(0, upTo + 1).map((m) => new RemoveMessage({ id: m.id as string })) });

        await turn("q1", text.question);
        const inThread = (model.calls.at(-1) as { messages: BaseMessage[] }).messages.map((m) => messageText(m)).join("\n");
        const facts = ((await agent.graph.getState(t1)).values[FACTS_STATE_KEY] as FactSlot).facts.map((f) => f.value).join("\n");
        await agent.invoke({ messages: [new HumanMessage(text.question)] }, { configurable: { thread_id: "t2", user_id: "u1" } });
        const elsewhere = (model.calls.at(-1) as { messages: BaseMessage[] }).messages.map((m) => messageText(m)).join("\n");

        expect(model.providerLog.rejected).toEqual([]);
        expect(facts).toContain(text.keptValue);
        expect(facts).not.toContain(text.removedValue);
        expect(inThread).toContain(text.keptValue);
        expect(inThread).not.toContain(text.removedValue);
        expect(elsewhere).toContain(text.keptValue);
        expect(elsewhere).not.toContain(text.removedValue);
      },
    );
  });
});

// A rewrite (`REMOVE_ALL_MESSAGES`, then the stored thread's newest messages) leaves out messages
// the archive took before factRecall's last read, so that its record no longer lists them: their
// facts go, and so do the earlier values they stated of a fact a kept message states, as on a
// thread without the archive, where they are still read (stack.archive.slow seed 20261203 case 11:
// the archive run kept "lives in Seoul (previously: Busan)", its control dropped it).
const REWRITE_TEXTS = {
  en: {
    before: "I live in Busan.",
    gone: "My sister Hana lives in Jeju.",
    goneValue: "Jeju",
    now: "I moved to Seoul.",
    filler: (k: number) => `It rained all day, day ${k}.`,
    question: "Where does Hana live?",
  },
  ko: {
    before: "저는 부산에 살아요.",
    gone: "제 여동생 하나는 제주에 살아요.",
    goneValue: "제주",
    now: "저는 서울로 이사했어요.",
    filler: (k: number) => `${k}일째 하루 종일 비가 왔어요.`,
    question: "하나는 어디 살아요?",
  },
} as const;

describe("a rewrite that leaves out messages archived before the last read (R37)", () => {
  it.each(["en", "ko"] as const)("%s: the requests and facts equal those of a thread without the archive", async (lang) => {
    const text = REWRITE_TEXTS[lang];
    const run = async (archive: boolean, keepIds?: ReadonlySet<string>) => {
      const model = strictModel({ answer: (_m, call) => `Noted, answer ${call}.` });
      const stack = memoryStack({
        env: {},
        archive,
        windowSize: 2,
        summarize: false,
        factsMode: "heuristic",
        recallMaxTokens: false,
        logger: false,
      });
      const agent = createAgent({ model, systemPrompt: "S", ...stack });
      const t1 = { configurable: { thread_id: "t1", user_id: "u1" } };
      const turn = (id: string, content: string) => agent.invoke({ messages: [new HumanMessage({ id, content })] }, t1);
      await turn("before", text.before);
      await turn("gone", text.gone);
      for (let k = 1; k <= 6; k += 1) await turn(`f${k}`, text.filler(k));
      await turn("now", text.now);
      await turn("f7", text.filler(7));
      const hot = (await agent.graph.getState(t1)).values.messages as BaseMessage[];
      const whole = archive ? await (stack.checkpointer as ThreadwiseSaver).readThread(t1) : hot;
      // The archive run keeps its hot part; the run without the archive keeps the same messages.
      const keep = keepIds ?? new Set(hot.map((m) => m.id as string));
      await agent.invoke(
        { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...whole.filter((m) => keep.has(m.id as string))] },
        t1,
      );
      await turn("q1", text.question);
      const request = (model.calls.at(-1) as { messages: BaseMessage[] }).messages.map((m) => messageText(m)).join("\n");
      const facts = ((await agent.graph.getState(t1)).values[FACTS_STATE_KEY] as FactSlot).facts;
      return { keep, request, facts, archivedBefore: whole.length - hot.length };
    };
    const withArchive = await run(true);
    // The messages stating the two facts had left the checkpoint and were kept out by the rewrite.
    expect(withArchive.archivedBefore).toBeGreaterThan(0);
    expect(withArchive.keep.has("gone")).toBe(false);
    expect(withArchive.keep.has("before")).toBe(false);
    expect(withArchive.keep.has("now")).toBe(true);
    const without = await run(false, withArchive.keep);
    expect(without.facts.map((f) => f.value).join("\n")).not.toContain(text.goneValue);
    expect(withArchive.facts).toEqual(without.facts);
    expect(withArchive.request).toBe(without.request);
  });
});
