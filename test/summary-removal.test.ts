/**
 * A summary of turns a user removed is not sent (R37, langgraphjs#1211, breaker33's finding): on
 * `memoryStack` (window 4, summarize every 6), in English and Korean, on MemorySaver and SQLite.
 * The summary stands or falls with the newest message it covers (summarize's `coverageRemoved`):
 * - removed by the user (`REMOVE_ALL_MESSAGES`, or a `RemoveMessage` of it alone): the summary is
 *   not placed, the older covered messages still stored are sent, and a new summary is made from
 *   what remains when due;
 * - taken by persistTrim (named by its trim mark) or moved to the archive: the summary stays.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BaseMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { messageText, readSummarySlot, type SummarySlot } from "@threadwise/core";
import type { ThreadwiseSaver } from "@threadwise/memory";
import { afterAll, describe, expect, it } from "vitest";
import { requests, stackAgent, summarizerModel } from "./support/report-agent.js";

const dir = mkdtempSync(join(tmpdir(), "threadwise-summary-removal-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TEXT = {
  en: { turn: (k: number) => `Turn ${k}: my sister Hana lives in Jeju.`, fresh: "Let us start over: I need a train ticket." },
  ko: { turn: (k: number) => `제${k}번째 말: 제 여동생 하나는 제주에 살아요.`, fresh: "처음부터 다시 할게요: 기차표가 필요해요." },
} as const;
type Lang = keyof typeof TEXT;
const MARK = "요약 summary";

function setup(backend: "in_memory" | "sqlite", name: string, stack: { archive?: boolean; persistTrimKeepGroups?: number } = {}) {
  const summarizer = summarizerModel((call) => `${MARK} ${call + 1}`);
  const built = stackAgent({
    backend,
    ...(backend === "sqlite" ? { sqlitePath: join(dir, `${name}.sqlite`) } : {}),
    windowSize: 4,
    summarizeThreshold: 6,
    summarizer: summarizer.model,
    promptContextMode: "legacy_system",
    stack: {
      archive: stack.archive ?? false,
      ...(stack.persistTrimKeepGroups ? { persistTrimKeepGroups: stack.persistTrimKeepGroups } : {}),
    },
  });
  const config = { configurable: { thread_id: name } };
  const turn = (id: string, content: string) => built.agent.invoke({ messages: [new HumanMessage({ id, content })] }, config);
  const state = async () => (await built.agent.graph.getState(config)).values as { messages: BaseMessage[] } & Record<string, unknown>;
  const slot = async (): Promise<SummarySlot> => readSummarySlot(await state());
  const lastRequest = () => (requests(built.model).at(-1) as BaseMessage[]).map((m) => messageText(m)).join("\n");
  return { ...built, summarizer, config, turn, state, slot, lastRequest };
}

const CASES = (["in_memory", "sqlite"] as const).flatMap((backend) => (["en", "ko"] as const).map((lang) => ({ backend, lang })));

describe.each(CASES)(
  "a summary of removed turns ($backend, $lang)",
  ({ backend, lang }: { backend: "in_memory" | "sqlite"; lang: Lang }) => {
    const t = TEXT[lang];

    it("REMOVE_ALL_MESSAGES: the summary of the removed turns is not placed; a new one is made from what remains", async () => {
      const s = setup(backend, `all-${backend}-${lang}`);
      for (let k = 1; k <= 5; k += 1) await s.turn(`u${k}`, t.turn(k));
      const old = (await s.slot()).summary?.text as string;
      expect(old).toContain(MARK);
      expect(s.lastRequest()).toContain(old);
      await s.agent.graph.updateState(s.config, {
        messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), new HumanMessage({ id: "fresh", content: t.fresh })],
      } as never);
      const before = s.model.calls.length;
      await s.turn("n1", t.turn(101));
      for (const request of requests(s.model).slice(before)) {
        const text = request.map((m) => messageText(m)).join("\n");
        expect(text).not.toContain(MARK);
        expect(text).toContain(t.fresh);
      }
      // What remains reaches the threshold: a new summary, made from it alone (no previous summary).
      const made = s.summarizer.inputs.length;
      for (let k = 2; k <= 4; k += 1) await s.turn(`n${k}`, t.turn(100 + k));
      expect(s.summarizer.inputs.length).toBeGreaterThan(made);
      const fresh = (await s.slot()).summary?.text as string;
      expect(fresh).not.toBe(old);
      expect(s.lastRequest()).toContain(fresh);
      expect(s.lastRequest()).not.toContain(old);
      const input = (s.summarizer.inputs[made] as BaseMessage[]).map((m) => messageText(m)).join("\n");
      expect(input).toContain(t.fresh);
      expect(input).not.toContain(old);
      expect(input).not.toContain(t.turn(1));
    });

    it("a RemoveMessage of the newest covered message alone: the summary is not placed, the older covered messages are sent", async () => {
      const s = setup(backend, `newest-${backend}-${lang}`);
      for (let k = 1; k <= 5; k += 1) await s.turn(`u${k}`, t.turn(k));
      const record = (await s.slot()).summary;
      expect(record?.coveredThroughId).toBeTruthy();
      const stored = (await s.state()).messages;
      const at = stored.findIndex((m) => m.id === record?.coveredThroughId);
      expect(at).toBeGreaterThan(0);
      const older = stored.slice(0, at).filter((m) => m.getType() === "human");
      expect(older.length).toBeGreaterThan(0);
      const removed = messageText(stored[at] as BaseMessage);
      await s.agent.graph.updateState(s.config, { messages: [new RemoveMessage({ id: record?.coveredThroughId as string })] } as never);
      const made = s.summarizer.inputs.length;
      await s.turn("u6", t.turn(6));
      // The thread still reaches the threshold: the summary is made again at once, from the stored
      // messages alone (no previous summary), and only that one is placed. Nothing stored is lost.
      expect(s.summarizer.inputs.length).toBeGreaterThan(made);
      const input = s.summarizer.inputs
        .slice(made)
        .flat()
        .map((m) => messageText(m))
        .join("\n");
      expect(input).not.toContain(record?.text as string);
      expect(input).not.toContain(removed);
      for (const m of older) expect(input).toContain(messageText(m));
      const text = s.lastRequest();
      expect(text).not.toContain(record?.text as string);
      expect(text).toContain((await s.slot()).summary?.text as string);
    });

    it("persistTrim took the covered messages, the boundary too: the summary stays", async () => {
      const s = setup(backend, `trim-${backend}-${lang}`, { persistTrimKeepGroups: 2 });
      let taken = false;
      for (let k = 1; k <= 12 && !taken; k += 1) {
        await s.turn(`u${k}`, t.turn(k));
        const slot = await s.slot();
        const through = slot.summary?.coveredThroughId;
        taken = typeof through === "string" && !(await s.state()).messages.some((m) => m.id === through) && slot.trimmed !== undefined;
      }
      expect(taken).toBe(true);
      await s.turn("last", t.turn(99));
      expect(s.lastRequest()).toContain(MARK);
    });

    it("the archive moved covered messages: the summary stays; a rewrite removing them drops it", async () => {
      const s = setup(backend, `archive-${backend}-${lang}`, { archive: true });
      const saver = s.stack.checkpointer as ThreadwiseSaver;
      let moved = false;
      for (let k = 1; k <= 12 && !moved; k += 1) {
        await s.turn(`u${k}`, t.turn(k));
        moved = (await saver.archivedMessages(s.config.configurable.thread_id)).length > 0;
      }
      expect(moved).toBe(true);
      await s.turn("last", t.turn(99));
      expect(s.lastRequest()).toContain(MARK);
      await s.agent.graph.updateState(s.config, {
        messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), new HumanMessage({ id: "fresh", content: t.fresh })],
      } as never);
      await s.turn("after", t.turn(100));
      expect(s.lastRequest()).not.toContain(MARK);
      expect(s.lastRequest()).toContain(t.fresh);
    });
  },
);
