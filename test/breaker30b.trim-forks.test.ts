/**
 * Scenarios for the middlewares the stack properties draw least (breaker30b): persistTrim and
 * summarize with forks from old checkpoints, replays and `getStateHistory` walks, on an encrypted
 * SQLite store (a keyring), with factRecall, recall, tokenCap, workMemory and historyAware on, in English and
 * Korean. Every model request (the agent's and the summarizer's) goes through the strict provider
 * validator (all four providers); each fork's request equals what a fresh process (a new stack on
 * the same file and keyring) sends from the same checkpoint; the file holds no plaintext.
 */
import { createHash } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { findOrphans, messageText, type PromptContextMode } from "@threadwise/core";
import { strictModel } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir, testKeyringFile, writeKeyringFile } from "../packages/encryption/src/test-support.js";

const dir = tempDir("tw-breaker30b-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const keyringPath = writeKeyringFile(dir, testKeyringFile(["k1"]));
const SYSTEM = "You are a travel assistant. 여행 도우미입니다.";
const SENTINEL = "ZEBRA-7741";

function build(file: string, mode: PromptContextMode) {
  const model = strictModel({ answer: (_m, call) => `Noted, answer ${call}.` });
  // A summary made from what the summarizer received only (a fresh process's summarizer makes the same).
  const summarizer = strictModel({
    answer: (m) =>
      `Summary ${createHash("sha1")
        .update(m.map((x) => messageText(x)).join("\n"))
        .digest("hex")
        .slice(0, 8)}.`,
  });
  const stack = memoryStack({
    env: {},
    backend: "sqlite",
    sqlitePath: file,
    keyringPath,
    windowSize: 4,
    summarize: true,
    summarizeThreshold: 6,
    persistTrimKeepGroups: 5,
    maxHistoryTokens: 400,
    factsMode: "heuristic",
    recallMaxTokens: 200,
    historyAware: true,
    promptContextMode: mode,
    workMemory: true,
    models: { summarize: summarizer as never, workMemory: summarizer as never },
    logger: false,
  });
  const agent = createAgent({ model, systemPrompt: SYSTEM, ...stack });
  return { agent, model, summarizer, stack };
}

function agentCalls(model: { calls: Array<{ messages: BaseMessage[] }> }) {
  return model.calls.filter((c) => messageText(c.messages[0] as BaseMessage).startsWith("You are a travel"));
}

function shape(messages: readonly BaseMessage[]) {
  return messages.map((m) => ({ type: m.getType(), text: messageText(m) }));
}

const TURNS = [
  `My passport number is ${SENTINEL}.`,
  "저는 서울에 살아요.",
  "I'm allergic to peanuts.",
  "제 이름은 민지예요.",
  "Book a window seat.",
  "다음 주에 부산에 가요.",
  "I work at Naver.",
  "Find a hotel near the station.",
  "제 강아지 이름은 보리예요.",
  "What's the weather tomorrow?",
];

describe.each(["legacy_system", "stable_tail", "cache_aware"] as const)(
  "persistTrim + summarize with forks, encrypted SQLite, %s",
  (mode) => {
    it("forks from old checkpoints and a history walk: every request valid, = a fresh process's; no orphans stored; no plaintext", async () => {
      const file = join(dir, `${mode}.sqlite`);
      const a = build(file, mode);
      const config = { configurable: { thread_id: `trim-${mode}` } };
      for (const content of TURNS) await a.agent.invoke({ messages: [new HumanMessage(content)] }, config);

      // persistTrim did delete (after the first summary), so the forks below start from trimmed and untrimmed checkpoints.
      const trimmed = ((await a.agent.graph.getState(config)).values as { messages: BaseMessage[] }).messages;
      expect(trimmed.length).toBeLessThan(TURNS.length * 2);
      const history = [];
      for await (const s of a.agent.graph.getStateHistory(config)) history.push(s);
      expect(history.length).toBeGreaterThan(TURNS.length);
      // Every snapshot reads back (decrypts) and holds no orphan.
      for (const s of history) expect(findOrphans((s.values as { messages?: BaseMessage[] }).messages ?? [])).toEqual([]);

      // Forks from finished checkpoints at several depths: a fresh process first, then ours.
      const finished = history.filter((s) => s.next.length === 0 && ((s.values as { messages?: BaseMessage[] }).messages ?? []).length > 0);
      const picks = [finished[1], finished[3], finished[6], finished.at(-2)].filter((s) => s !== undefined);
      for (const [k, pick] of picks.entries()) {
        const text = k % 2 === 0 ? `제가 어디에 살죠? (${k})` : `What am I allergic to? (${k})`;
        const fresh = build(file, mode);
        await fresh.agent.invoke({ messages: [new HumanMessage({ id: `fork-${k}`, content: text })] }, pick.config as never);
        await a.agent.invoke({ messages: [new HumanMessage({ id: `fork-${k}`, content: text })] }, pick.config as never);
        const ours = agentCalls(a.model as never).at(-1)?.messages as BaseMessage[];
        const theirs = agentCalls(fresh.model as never).at(-1)?.messages as BaseMessage[];
        expect(shape(ours), `fork ${k}`).toEqual(shape(theirs));
        expect(fresh.model.providerLog.rejections).toBe(0);
        expect(fresh.summarizer.providerLog.rejections).toBe(0);
        await fresh.stack.checkpointer?.close?.();
      }
      // The head (the last fork) after its persistTrim: no orphan, the newest user turn kept.
      const head = await a.agent.graph.getState(config);
      const stored = (head.values as { messages: BaseMessage[] }).messages;
      expect(findOrphans(stored)).toEqual([]);
      expect(stored.some((m) => m.id === `fork-${picks.length - 1}`)).toBe(true);

      // A turn on the head after the forks, and the same from a fresh process.
      const fresh = build(file, mode);
      await fresh.agent.invoke({ messages: [new HumanMessage({ id: "last", content: "제 이름이 뭐예요?" })] }, head.config as never);
      await a.agent.invoke({ messages: [new HumanMessage({ id: "last", content: "제 이름이 뭐예요?" })] }, head.config as never);
      expect(shape(agentCalls(a.model as never).at(-1)?.messages as BaseMessage[])).toEqual(
        shape(agentCalls(fresh.model as never).at(-1)?.messages as BaseMessage[]),
      );
      await fresh.stack.checkpointer?.close?.();

      expect(a.model.providerLog.rejections).toBe(0);
      expect(a.summarizer.providerLog.rejections).toBe(0);
      expect(a.summarizer.calls.length).toBeGreaterThan(0);
      await a.stack.checkpointer?.close?.();
      const bytes = readFileSync(file);
      expect(bytes.includes(SENTINEL)).toBe(false);
      expect(bytes.includes(Buffer.from("서울"))).toBe(false);
    });
  },
);
