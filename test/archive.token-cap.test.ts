/**
 * tokenCap's chunked mode on a thread the message archive marked (arch35's window mark, m56): a
 * run with the archive and a run without it take the same turns and the same ops, and every model
 * call must be the same request (R35), on MemorySaver (`in_memory`) and SQLite, en/ko turns, with
 * core's strict scripted model. tokenCap (chunked, in tokens) counts its cut points from where the
 * view decided so far starts: windowTrim's cut (the mark makes it the whole thread's) or the first
 * message the summary does not cover, both hot. Checked with the summary (a covered message and
 * the summary's boundary removed: the summary is made again over the whole thread, the archived
 * part read back) and without one (`summarize: false`, the view is the window only).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { messageText, readSummarySlot } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack, messageArchive, type ThreadwiseSaver } from "@threadwise/memory";
import { tokenCap } from "@threadwise/token-cap";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { comparedMessage } from "./support/compared-message.js";

const dir = mkdtempSync(join(tmpdir(), "tw-archive-token-cap-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const WINDOW = 6;
const TOKEN_CAP_NAME = "threadwise/token-cap";
const config = { configurable: { thread_id: "t" } };
let files = 0;

const lookup = tool(async ({ key }: { key: string }) => `${key}: 값 value`, {
  name: "lookup",
  description: "Looks a key up.",
  schema: z.object({ key: z.string() }),
});

/** Turn k's user message, Korean and English by turn, of varied lengths (token costs differ by group). */
const userText = (k: number) =>
  k % 2 === 0
    ? `질문 ${k}: 제 사물함 번호가 뭐였죠?${" 그리고 여행 얘기도 해 주세요.".repeat(k % 3)}`
    : `question ${k}: what did I say about the trip?${" And the hotel near the station.".repeat(k % 4)}`;

interface Setup {
  archive: boolean;
  summarize: boolean;
  /** Chunked token cap's limit, or none (the reference that shows the cap cut). */
  cap: number | undefined;
}

/**
 * An agent on memoryStack (windowSize 6, summarize due at 10 or off) with or without the archive
 * (tight as the slow fuzz's: keepGroups 7, batches of 2, aligned to the window's step 3), the
 * preset's token cap replaced by a chunked one. Turns 3k+1 ask for two lookups at once.
 */
function agentFor(backend: "in_memory" | "sqlite", setup: Setup) {
  files += 1;
  const summarizer = scriptedModel((messages) => `요약 summary of ${messages.map((m) => messageText(m)).join(" / ").length}`, {
    strict: false,
  });
  const model = scriptedModel((messages, call) => {
    const last = messages.at(-1) as BaseMessage;
    const turn = Number(String(last.id).slice(1));
    if (HumanMessage.isInstance(last) && turn % 3 === 1)
      return new AIMessage({
        id: `call-${turn}`,
        content: "",
        tool_calls: [
          { id: `c${turn}a`, name: "lookup", args: { key: `a${turn}` } },
          { id: `c${turn}b`, name: "lookup", args: { key: `b${turn}` } },
        ],
      });
    return new AIMessage({ id: `a-${call}`, content: `답 answer ${call}${" 자세한 설명 details.".repeat(call % 3)}` });
  });
  const stack = memoryStack({
    backend,
    ...(backend === "sqlite" ? { sqlitePath: join(dir, `t${files}.sqlite`) } : {}),
    archive: setup.archive,
    windowSize: WINDOW,
    summarize: setup.summarize,
    // Due at 10 when on (a threshold or a summarizer with summarize off is refused: it would do nothing).
    ...(setup.summarize ? { summarizeThreshold: 10, models: { summarize: summarizer } } : {}),
    recallMaxTokens: false,
    ...(setup.cap === undefined ? {} : { maxHistoryTokens: setup.cap }),
    logger: false,
    env: {},
  });
  const saver = stack.checkpointer as ThreadwiseSaver;
  const middleware = stack.middleware.map((m) =>
    m.name === "threadwise/message-archive"
      ? messageArchive(saver, { keepGroups: WINDOW + 1, batchMessages: 2, alignMessages: 3, logger: false })
      : m.name === TOKEN_CAP_NAME && setup.cap !== undefined
        ? tokenCap({ maxTokens: setup.cap, eviction: "chunked", lowWatermark: Math.floor(setup.cap * 0.6), logger: false, env: {} })
        : m,
  );
  if (setup.cap !== undefined && !middleware.some((m) => m.name === TOKEN_CAP_NAME)) throw new Error("no token cap in the stack");
  const agent = createAgent({ model, tools: [lookup], checkpointer: saver, middleware });
  return { agent, model, saver };
}

type Run = ReturnType<typeof agentFor>;
const hotOf = async (run: Run) => ((await run.agent.graph.getState(config)).values as { messages: BaseMessage[] }).messages;
const firstUser = (hot: readonly BaseMessage[]) => hot.findIndex((m) => HumanMessage.isInstance(m));

/** The op on the archive run's hot part, or `undefined` when it has no such target now. */
type Op = (hot: readonly BaseMessage[], run: Run) => Promise<((m: BaseMessage) => boolean) | undefined>;
const ops: Record<string, Op> = {
  // A tool result left hot before the hot part's first user message (seed 311 case 11's class).
  "remove a result before the hot part's first user message": async (hot) => {
    const at = hot.slice(0, firstUser(hot)).find((m) => ToolMessage.isInstance(m)) as ToolMessage | undefined;
    return at && ((m) => ToolMessage.isInstance(m) && m.tool_call_id === at.tool_call_id);
  },
  // The hot part's first user message, one whose turn called tools.
  "remove the hot part's first user message": async (hot) => {
    const at = hot[firstUser(hot)];
    const next = hot[firstUser(hot) + 1];
    return at && next && AIMessage.isInstance(next) && (next.tool_calls?.length ?? 0) > 0 && firstUser(hot) < hot.length - 4
      ? (m) => m.id === at.id
      : undefined;
  },
  // The summary's boundary (the message it covers through, which stays hot; the cap's extensions
  // keep it near the view's start): the summary no longer covers what it did and is made again
  // over the whole thread, the archived part read back.
  "remove the summary's boundary": async (hot, run) => {
    const through = readSummarySlot((await run.agent.graph.getState(config)).values).summary?.coveredThroughId;
    const at = hot.findIndex((m) => m.id === through);
    return at !== -1 && at < hot.length - 2 && AIMessage.isInstance(hot[at]) && (hot[at] as AIMessage).tool_calls?.length === 0
      ? (m) => m.id === through
      : undefined;
  },
};

async function drive(backend: "in_memory" | "sqlite", summarize: boolean, cap: number) {
  const archived = agentFor(backend, { archive: true, summarize, cap });
  const plain = agentFor(backend, { archive: false, summarize, cap });
  const uncapped = agentFor(backend, { archive: false, summarize, cap: undefined });
  const runs = [archived, plain, uncapped];
  const applied = new Map<string, number>();
  let due = 0;
  for (let k = 1; k <= 30; k += 1) {
    for (const run of runs) await run.agent.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: userText(k) })] }, config);
    if (k < due || (await archived.saver.archivedMessages("t")).length === 0) continue;
    const hot = await hotOf(archived);
    let chosen: [string, (m: BaseMessage) => boolean] | undefined;
    for (const [name, op] of Object.entries(ops)) {
      if (!summarize && name === "remove the summary's boundary") continue;
      const target = await op(hot, archived);
      if (target) {
        chosen = [name, target];
        break;
      }
    }
    if (!chosen) continue;
    const [name, target] = chosen;
    for (const run of runs) {
      const stored = (await hotOf(run)).find(target);
      if (!stored) throw new Error(`${name}: the target is not stored in run ${runs.indexOf(run)}`);
      await run.agent.graph.updateState(config, { messages: [new RemoveMessage({ id: stored.id as string })] });
    }
    applied.set(name, (applied.get(name) ?? 0) + 1);
    due = k + 1;
  }
  const requests = (run: Run) => run.model.calls.map((call) => call.messages.map(comparedMessage));
  const result = {
    applied: [...applied.keys()].sort(),
    archivedMessages: (await archived.saver.archivedMessages("t")).length,
    mark: readSummarySlot((await archived.agent.graph.getState(config)).values).archivedWindow,
    same: requests(archived),
    plain: requests(plain),
    // Calls where the cap cut the view further than the window and summary alone.
    capCut: requests(plain).filter((r, i) => r.length < (requests(uncapped)[i]?.length ?? 0)).length,
    thread: (await archived.saver.readThread(config)).map(comparedMessage),
    plainThread: (await plain.saver.readThread(config)).map(comparedMessage),
  };
  for (const run of runs) await run.saver.close();
  return result;
}

describe.each(["in_memory", "sqlite"] as const)(
  "%s: a chunked token cap on an archived thread sends the requests of a run without the archive",
  (backend) => {
    it.each([
      [true, 130],
      [false, 110],
    ])(
      "summarize %s, cap %i tokens: removals in the hot part, then more turns",
      async (summarize, cap) => {
        const r = await drive(backend, summarize, cap);
        console.log(`[archive.token-cap] ${backend} summarize=${summarize}: ops ${r.applied.join(", ")}; calls the cap cut ${r.capCut}`);
        expect(r.archivedMessages).toBeGreaterThan(0);
        expect(r.mark).toBeDefined();
        // The cap did cut (else this compares windows only), and every op class ran.
        expect(r.capCut).toBeGreaterThan(0);
        expect(r.applied.length).toBeGreaterThan(1);
        expect(r.same).toEqual(r.plain);
        expect(r.thread).toEqual(r.plainThread);
      },
      300_000,
    );
  },
);
