/**
 * The chunked window over an archived thread under removals and in-place edits in the hot part
 * (stack.archive.slow seed 311 case 11, seed 313 case 10; session 55), through whole agents: a run
 * with the message archive and a run without it take the same turns and the same ops, and every
 * model call must be the same request (R35), on MemorySaver (`in_memory`) and SQLite. The model is
 * core's strict scripted model: it refuses a request a provider would (test/support's validator).
 * Before the fix the window over the hot part counted from the hot part's first user message, the
 * run without the archive from an archived one: removing a tool result the batch left hot before
 * the hot part's first user message, removing that user message, or editing a call's message in
 * place (its calls removed: its results turn orphans) moved the cut in one run only.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { messageText, readSummarySlot } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack, messageArchive, type ThreadwiseSaver } from "@threadwise/memory";
import { DEFAULT_RECALL_LABEL } from "@threadwise/recall";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { comparedMessage, lockerTurnText } from "./support/compared-message.js";

const dir = mkdtempSync(join(tmpdir(), "tw-archive-window-edits-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const WINDOW = 6;
const config = { configurable: { thread_id: "t" } };
let files = 0;

const lookup = tool(async ({ key }: { key: string }) => `${key}: 값 value`, {
  name: "lookup",
  description: "Looks a key up.",
  schema: z.object({ key: z.string() }),
});

/**
 * An agent on memoryStack (windowSize 6, summarize due at 10) with or without the archive; the
 * archive tight (keepGroups 7, batches of 2, aligned to the window's step 3) as the slow fuzz's.
 * Turns 3k+1 ask for two lookups at once (a tool call with two results).
 */
function agentFor(archive: boolean, backend: "in_memory" | "sqlite", summarize: boolean, recall: boolean) {
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
    return new AIMessage({ id: `a-${call}`, content: `답 answer ${call}` });
  });
  const stack = memoryStack({
    backend,
    ...(backend === "sqlite" ? { sqlitePath: join(dir, `t${files}.sqlite`) } : {}),
    archive,
    windowSize: WINDOW,
    summarize,
    // Due at 10 when on (a threshold or a summarizer with summarize off is refused: it would do nothing).
    ...(summarize ? { summarizeThreshold: 10, models: { summarize: summarizer } } : {}),
    ...(recall ? {} : { recallMaxTokens: false as const }),
    logger: false,
    env: {},
  });
  const saver = stack.checkpointer as ThreadwiseSaver;
  const middleware = stack.middleware.map((m) =>
    m.name === "threadwise/message-archive"
      ? messageArchive(saver, { keepGroups: WINDOW + 1, batchMessages: 2, alignMessages: 3, logger: false })
      : m,
  );
  const agent = createAgent({ model, tools: [lookup], checkpointer: saver, middleware });
  return { agent, model, summarizer, saver };
}

type Run = ReturnType<typeof agentFor>;
const hotOf = async (run: Run) => ((await run.agent.graph.getState(config)).values as { messages: BaseMessage[] }).messages;

/** The op on the archive run's hot part, or `undefined` when it has no such target now. */
type Op = (hot: readonly BaseMessage[]) => { target: (m: BaseMessage) => boolean; update: (m: BaseMessage) => BaseMessage } | undefined;
const firstUser = (hot: readonly BaseMessage[]) => hot.findIndex((m) => HumanMessage.isInstance(m));
const removal = { update: (m: BaseMessage) => new RemoveMessage({ id: m.id as string }) };
const ops: Record<string, Op> = {
  // (1) a tool result left hot before the hot part's first user message (seed 311 case 11).
  "remove a result before the hot part's first user message": (hot) => {
    const at = hot.slice(0, firstUser(hot)).find((m) => ToolMessage.isInstance(m));
    return at && { target: (m) => ToolMessage.isInstance(m) && m.tool_call_id === (at as ToolMessage).tool_call_id, ...removal };
  },
  // (2) the hot part's first user message, one whose turn called tools (the call and its results
  // are then left before the hot part's next user message).
  "remove the hot part's first user message": (hot) => {
    const at = hot[firstUser(hot)];
    const next = hot[firstUser(hot) + 1];
    return at && next && AIMessage.isInstance(next) && (next.tool_calls?.length ?? 0) > 0 && firstUser(hot) < hot.length - 4
      ? { target: (m) => m.id === at.id, ...removal }
      : undefined;
  },
  // (3) a call's message before the hot part's first user message, edited in place without its calls (seed 313 case 10).
  "edit a call before the hot part's first user message (calls removed)": (hot) => {
    const at = hot.slice(0, firstUser(hot)).find((m) => AIMessage.isInstance(m) && (m.tool_calls?.length ?? 0) > 0);
    return at && { target: (m) => m.id === at.id, update: (m) => new AIMessage({ id: m.id as string, content: "이제 text only 답" }) };
  },
};

// `summarize: false` (arch37): memoryStack declared no summary slot then, LangGraph dropped the
// archive's write of its window count, and the window counted the hot part from its first user
// message again (requests differed after the first two ops).
// recall on (arch37): its block (placed from the archive and the hot part) and summarize's span
// (planned from the view's windowFrom) on a marked thread are the run without the archive's.
describe.each([
  ["in_memory", true, false],
  ["sqlite", true, false],
  ["in_memory", false, false],
  ["sqlite", false, false],
  ["in_memory", true, true],
  ["sqlite", true, true],
] as const)("%s, summarize %s, recall %s: the archive run sends the requests of a run without it", (backend, summarize, recall) => {
  it("removals and in-place edits in the hot part, then more turns", async () => {
    const archived = agentFor(true, backend, summarize, recall);
    const plain = agentFor(false, backend, summarize, recall);
    const applied = new Map<string, number>();
    let due = 0;
    // Once the archive holds messages: at most one op a turn, the first of `ops` whose
    // target the archive run's hot part holds now (removing its first user message leaves the
    // groups before the next one, where the first and the third op find theirs), on both runs.
    for (let k = 1; k <= 30; k += 1) {
      for (const run of [archived, plain])
        await run.agent.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: lockerTurnText(k) })] }, config);
      if (k < due || (await archived.saver.archivedMessages("t")).length === 0) continue;
      const hot = await hotOf(archived);
      const [name, change] = Object.entries(ops)
        .map(([name, op]) => [name, op(hot)] as const)
        .find(([, change]) => change !== undefined) ?? ["", undefined];
      if (!change) continue;
      for (const run of [archived, plain]) {
        const stored = (await hotOf(run)).find(change.target);
        if (!stored)
          throw new Error(`${name}: the target is not stored in ${run === plain ? "the run without the archive" : "the archive run"}`);
        await run.agent.graph.updateState(config, { messages: [change.update(stored)] });
      }
      applied.set(name, (applied.get(name) ?? 0) + 1);
      due = k + 1;
    }
    // Every class ran at least once, on an archived thread (without a summary no call is left
    // before the hot part's first user message: the archive ends right before one).
    const classes = Object.keys(ops).filter((name) => summarize || !name.startsWith("edit a call"));
    expect([...applied.keys()].sort()).toEqual(classes.sort());
    // Every model call is the same request (the strict model refused none: it would have thrown).
    const requests = (run: Run) => run.model.calls.map((call) => call.messages.map(comparedMessage));
    expect(requests(archived)).toEqual(requests(plain));
    // The summarizer's requests too: summarize plans its span with the view's windowFrom.
    expect(archived.summarizer.calls.map((call) => call.messages.map(comparedMessage))).toEqual(
      plain.summarizer.calls.map((call) => call.messages.map(comparedMessage)),
    );
    if (summarize) expect(plain.summarizer.calls.length).toBeGreaterThan(0);
    // With recall on, its block was placed (in the system message: `legacy_system`).
    if (recall) expect(requests(plain).some((r) => (r[0] ?? "").includes(DEFAULT_RECALL_LABEL))).toBe(true);
    expect((await archived.saver.readThread(config)).map(comparedMessage)).toEqual(
      (await plain.saver.readThread(config)).map(comparedMessage),
    );
    // The archive stored its window count with its batches (core's `ArchivedWindow`).
    expect(readSummarySlot((await archived.agent.graph.getState(config)).values).archivedWindow).toBeDefined();
    await archived.saver.close();
    await plain.saver.close();
  }, 300_000);
});
