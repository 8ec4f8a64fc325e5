/**
 * More LangGraph operations from public reports, on a thread the stack has windowed, summarized and
 * (archive on) archived. `memoryStack` (window 4, summarize), English and Korean, archive off and
 * on; oracle: plain `createAgent` on a `MemorySaver` (the same operations, the same thread), and
 * the strict validator for OpenAI, Anthropic (no prefill), Gemini and Bedrock on every request the
 * stack sent (report-agent's `graphOpsAgents`).
 *
 * - https://github.com/langchain-ai/langgraphjs/pull/847 "Update messagesStateReducer behavior to
 *   apply rightMessages in order": one update removing a stored message and writing a message
 *   under its id (and the reverse: writing, then removing it) gives what a plain saver gives;
 * - https://github.com/langchain-ai/langgraphjs/issues/2737 "updateState on the root checkpoint
 *   merges ... writes from parallel branches": `updateState` on the thread's first checkpoint (the
 *   input's, before any step ran), then a turn from it: the fork holds only what a plain saver's
 *   holds (never the later turns); archive on, twelve turns archived the oldest messages and the
 *   fork is refused with `ThreadwiseArchivedMessageError` (R37), nothing stored;
 * - https://github.com/pizza-bot-app/pizza-bot/pull/92 "forward the history page limit to the
 *   checkpointer" (a history read by pages of `limit` with a `before` cursor): paging the stack's
 *   `getStateHistory` by 1, 3 and 7 yields every checkpoint of the unpaged history once, in order,
 *   each holding what the unpaged one holds (the stack's saver filters and pages itself);
 * - https://github.com/langchain-ai/langgraph/pull/7729 "assign UUIDs to ID-less messages" (without
 *   ids `RemoveMessage` tombstoning no-ops): messages written by `updateState` without ids get ids,
 *   and removing them by those ids removes them, as on a plain saver;
 * - https://github.com/vercel/ai/issues/16567 (https://github.com/vercel/ai/pull/16577 "Parallel tool
 *   results are serialized in completion order, silently breaking provider prompt caching"): three
 *   parallel calls whose tools finish in reverse order: the results are stored and sent in call
 *   order, as plain's, and every later request repeats them the same while they are in the window.
 */
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage, type ToolMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { createAgent, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import {
  expectAccepted,
  GRAPH_OPS_CASES,
  GRAPH_OPS_TEXT,
  graphOpsAgents,
  graphOpsLabel,
  graphOpsPair,
  outcome,
  parallelModel,
  type ReportGraph,
  requests,
  stackAgent,
  storedMessages,
  summarizerModel,
  threadShape,
  warmGraphOps,
  wholeThread,
} from "./support/report-agent.js";

const both = graphOpsPair;

describe.each(GRAPH_OPS_CASES)("public reports, graph operations 6 (%o)", (c) => {
  it(`langgraphjs#847: one update removing a message and writing under its id, or writing then removing, as on a plain saver (${graphOpsLabel(c)})`, async () => {
    const a = graphOpsAgents(c);
    const cfg = { configurable: { thread_id: `in-order-${c.lang}-${c.archive}` } };
    const steps: Record<string, string[]> = { agent: [], plain: [] };
    for (const [name, target] of both(a)) {
      await warmGraphOps(target, c.lang, cfg);
      // The newest answer (hot on every stack): removed, then written again under its id with other text.
      const newest = (await target.getState(cfg)).values.messages?.at(-1) as BaseMessage;
      steps[name]?.push(
        await outcome(
          target.updateState(cfg, {
            messages: [
              new RemoveMessage({ id: newest.id as string }),
              new AIMessage({ id: newest.id as string, content: GRAPH_OPS_TEXT[c.lang].note }),
            ],
          }),
        ),
      );
      await target.invoke({ messages: [new HumanMessage(GRAPH_OPS_TEXT[c.lang].after)] }, cfg);
      // Written under a new id, then removed in the same update.
      steps[name]?.push(
        await outcome(
          target.updateState(cfg, {
            messages: [
              new AIMessage({ id: `gone-${c.lang}`, content: GRAPH_OPS_TEXT[c.lang].fixed }),
              new RemoveMessage({ id: `gone-${c.lang}` }),
            ],
          }),
        ),
      );
      await warmGraphOps(target, c.lang, cfg, 3, 7);
    }
    expect(steps.agent).toEqual(steps.plain);
    const plain = await storedMessages(a.plain as never, cfg.configurable.thread_id);
    expect(threadShape(await wholeThread(a, cfg.configurable.thread_id))).toEqual(threadShape(plain));
    expect(plain.map((m) => messageText(m))).not.toContain(GRAPH_OPS_TEXT[c.lang].fixed);
    expectAccepted(a.m);
  });

  it(`langgraphjs#2737: updateState on the thread's first checkpoint, then a turn from it: the fork holds what a plain saver's holds (${graphOpsLabel(c)})`, async () => {
    const a = graphOpsAgents(c);
    const cfg = { configurable: { thread_id: `root-update-${c.lang}-${c.archive}` } };
    const forks: Record<string, BaseMessage[]> = {};
    const steps: Record<string, string[]> = { agent: [], plain: [] };
    let before: BaseMessage[] = [];
    for (const [name, target] of both(a)) {
      await warmGraphOps(target, c.lang, cfg, 12);
      if (name === "agent") before = await wholeThread(a, cfg.configurable.thread_id);
      const history = [];
      for await (const snapshot of target.getStateHistory(cfg)) history.push(snapshot);
      const root = history.at(-1);
      expect(root?.values.messages ?? []).toEqual([]);
      let forkCfg: { configurable?: Record<string, unknown> } | undefined;
      steps[name]?.push(
        await outcome(
          target.updateState(root?.config ?? cfg, { messages: [new HumanMessage(GRAPH_OPS_TEXT[c.lang].note)] }).then((made) => {
            forkCfg = made;
          }),
        ),
      );
      if (!forkCfg) continue;
      forks[name] = (await target.getState(forkCfg)).values.messages ?? [];
      await target.invoke({ messages: [new HumanMessage(GRAPH_OPS_TEXT[c.lang].after)] }, { configurable: { ...forkCfg.configurable } });
      forks[`${name}-after`] = (await target.getState(cfg)).values.messages ?? [];
    }
    if (c.archive) {
      // Twelve turns archived the oldest messages: a fork from before them is refused with the
      // typed error naming the way out (R37), nothing stored; plain LangGraph takes it.
      expect(steps.agent?.[0]).toMatch(/^ThreadwiseArchivedMessageError: .*predates archived message/);
      expect(steps.plain).toEqual(["ok"]);
      expect(threadShape(await wholeThread(a, cfg.configurable.thread_id))).toEqual(threadShape(before));
    } else {
      expect(steps.agent).toEqual(steps.plain);
      expect(threadShape(forks.agent ?? [])).toEqual(threadShape(forks.plain ?? []));
      expect(threadShape(forks["agent-after"] ?? [])).toEqual(threadShape(forks["plain-after"] ?? []));
      // The fork's turn showed the model the note and the question only (two user messages in a row
      // are sent as one), never a later turn.
      const last = requests(a.m).at(-1) as BaseMessage[];
      expect(last.filter((m) => m.getType() !== "system").map((m) => messageText(m))).toEqual([
        `${GRAPH_OPS_TEXT[c.lang].note}\n\n${GRAPH_OPS_TEXT[c.lang].after}`,
      ]);
    }
    expectAccepted(a.m);
  });

  it(`pizza-bot#92: getStateHistory paged by limit and before yields the whole history once, in order, as unpaged (${graphOpsLabel(c)})`, async () => {
    const a = graphOpsAgents(c);
    const cfg = { configurable: { thread_id: `history-pages-${c.lang}-${c.archive}` } };
    for (const [, target] of both(a)) {
      await warmGraphOps(target, c.lang, cfg, 5);
      await target.updateState(cfg, { messages: [new AIMessage(GRAPH_OPS_TEXT[c.lang].note)] });
      await target.invoke({ messages: [new HumanMessage(`${GRAPH_OPS_TEXT[c.lang].after}\nPARALLEL 2`)] }, cfg);
      await warmGraphOps(target, c.lang, cfg, 2, 6);
      const ids = async (options: object = {}) => {
        const out: string[] = [];
        for await (const s of target.getStateHistory(cfg, options)) out.push(String(s.config.configurable?.checkpoint_id));
        return out;
      };
      const all = await ids();
      expect(new Set(all).size).toBe(all.length);
      for (const limit of [1, 3, 7]) {
        const paged: string[] = [];
        for (let before: string | undefined; ; ) {
          const page = await ids({ limit, ...(before ? { before: { configurable: { checkpoint_id: before } } } : {}) });
          expect(page.length).toBeLessThanOrEqual(limit);
          paged.push(...page);
          if (page.length < limit) break;
          before = page.at(-1);
        }
        expect(paged, `limit ${limit}`).toEqual(all);
      }
      // Each checkpoint of a page holds what the unpaged history's does.
      const first = [];
      for await (const s of target.getStateHistory(cfg, { limit: 4 })) first.push(threadShape(s.values.messages ?? []));
      const unpaged = [];
      for await (const s of target.getStateHistory(cfg)) unpaged.push(threadShape(s.values.messages ?? []));
      expect(first).toEqual(unpaged.slice(0, 4));
    }
    expect(threadShape(await wholeThread(a, cfg.configurable.thread_id))).toEqual(
      threadShape(await storedMessages(a.plain as never, cfg.configurable.thread_id)),
    );
    expectAccepted(a.m);
  });

  it(`langgraph#7729: messages written without ids get ids, and RemoveMessage by those ids removes them, as on a plain saver (${graphOpsLabel(c)})`, async () => {
    const a = graphOpsAgents(c);
    const cfg = { configurable: { thread_id: `no-ids-${c.lang}-${c.archive}` } };
    for (const [, target] of both(a)) {
      await warmGraphOps(target, c.lang, cfg);
      await target.updateState(cfg, {
        messages: [new HumanMessage(GRAPH_OPS_TEXT[c.lang].note), new AIMessage(GRAPH_OPS_TEXT[c.lang].fixed)],
      });
      const stored = (await target.getState(cfg)).values.messages ?? [];
      const written = stored.filter((m) => [GRAPH_OPS_TEXT[c.lang].note, GRAPH_OPS_TEXT[c.lang].fixed].some((t) => t === messageText(m)));
      expect(written.length).toBe(2);
      for (const m of written) expect(typeof m.id === "string" && m.id !== "").toBe(true);
      await target.invoke({ messages: [new HumanMessage(GRAPH_OPS_TEXT[c.lang].after)] }, cfg);
      await target.updateState(cfg, { messages: written.map((m) => new RemoveMessage({ id: m.id as string })) });
      await warmGraphOps(target, c.lang, cfg, 3, 7);
    }
    const plain = await storedMessages(a.plain as never, cfg.configurable.thread_id);
    const stacked = await wholeThread(a, cfg.configurable.thread_id);
    expect(threadShape(stacked)).toEqual(threadShape(plain));
    expect(stacked.map((m) => messageText(m))).not.toContain(GRAPH_OPS_TEXT[c.lang].note);
    // The notes reached the model while stored.
    const asked = requests(a.m).find((r) => messageText(r.at(-1) as BaseMessage) === GRAPH_OPS_TEXT[c.lang].after) as BaseMessage[];
    expect(asked.map((m) => messageText(m)).join("\n")).toContain(GRAPH_OPS_TEXT[c.lang].fixed);
    expectAccepted(a.m);
  });

  it(`vercel/ai#16567: parallel results finishing in reverse order are stored and sent in call order, every later request the same (${graphOpsLabel(c)})`, async () => {
    // `lookup n` sleeps (3 - n) * 15 ms: call 0 finishes last.
    const slow = tool(
      async ({ n }: { n: number }) => {
        await new Promise((resolve) => setTimeout(resolve, (3 - n) * 15));
        return `result ${n}`;
      },
      { name: "lookup", description: "Looks a number up.", schema: z.object({ n: z.number() }) },
    );
    const m = parallelModel(true);
    const { agent, stack } = stackAgent({
      model: m,
      tools: [slow],
      // A window that keeps the results for a few turns.
      windowSize: 12,
      summarizeThreshold: 14,
      summarizer: summarizerModel((call) => `요약 summary ${call + 1}`).model,
      stack: { archive: c.archive },
    });
    const plainModel = parallelModel(false);
    const plain = createAgent({
      model: plainModel,
      tools: [slow],
      systemPrompt: "You are a helpful assistant.",
      checkpointer: new MemorySaver(),
    });
    const cfg = { configurable: { thread_id: `result-order-${c.lang}-${c.archive}` } };
    for (const target of [agent, plain] as unknown as ReportGraph[]) {
      await warmGraphOps(target, c.lang, cfg, 3);
      await target.invoke({ messages: [new HumanMessage(`${GRAPH_OPS_TEXT[c.lang].after}\nPARALLEL 3`)] }, cfg);
      await warmGraphOps(target, c.lang, cfg, 2, 4);
    }
    const stored = await (stack.checkpointer as unknown as { readThread(config: object): Promise<BaseMessage[]> }).readThread(cfg);
    expect(threadShape(stored)).toEqual(threadShape(await storedMessages(plain as never, cfg.configurable.thread_id)));
    const order = (messages: readonly BaseMessage[]) =>
      messages.filter((x) => x.getType() === "tool").map((x) => (x as ToolMessage).tool_call_id);
    const ids = ((stored.find((x) => (x as AIMessage).tool_calls?.length) as AIMessage).tool_calls ?? []).map((call) => call.id);
    expect(order(stored)).toEqual(ids);
    // Each later request that holds the results holds them in call order, as the same prefix.
    const holding = requests(m).filter((r) => order(r).length > 0);
    expect(holding.length).toBeGreaterThan(1);
    for (const r of holding) expect(order(r)).toEqual(ids);
    expectAccepted(m);
  });
});
