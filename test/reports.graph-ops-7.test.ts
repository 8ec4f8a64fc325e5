/**
 * LangGraph operations the fuzzers never did, from public reports, on a thread the stack has
 * windowed, summarized and (archive on) archived. `memoryStack` (window 4, summarize), English and
 * Korean, archive off and on; oracle: plain `createAgent` on a `MemorySaver` (the same operations,
 * the same thread), the strict validator (OpenAI, Anthropic without prefill, Gemini, Bedrock) and
 * the wire check (each request converted by `@langchain/openai`, `@langchain/anthropic` and
 * `@langchain/google-genai`) on every request the stack sent (report-agent's `expectAccepted`).
 *
 * - https://github.com/langchain-ai/langgraph/pull/2256 "Fix stream_mode=messages used together
 *   with subgraphs=True" (and https://github.com/langchain-ai/langgraphjs/issues/1116): `stream`
 *   with `subgraphs: true` and `["values", "updates", "messages"]` at once while the stack
 *   summarizes: every chunk is `[namespace, mode, payload]`, no message chunk holds the summary,
 *   the last values chunk is the thread `getState` reads, and the thread is plain's;
 * - https://github.com/CopilotKit/CopilotKit/issues/6201 "two tool messages for one toolCallId"
 *   after a resume: a tool that calls `interrupt()` beside a parallel `lookup`, resumed with
 *   `Command({ resume })`: each call has one result, stored as plain stores them;
 * - https://github.com/langchain-ai/langgraph/pull/6900 (issue 6171) "history filters remain
 *   effective" for `update_state` checkpoints: `getStateHistory` with `filter: { source: "update" }`,
 *   paged by `limit` and `before`, yields the unfiltered history's update checkpoints, as many as
 *   plain's;
 * - https://github.com/langchain-ai/langchainjs/pull/11652 "resolve jumpTo 'model' to the loop
 *   entry node" (and issue 9713): a user's `afterModel` hook that adds a user message and jumps
 *   back to the model (JavaScript skips the `beforeModel` hooks): the request after the jump is
 *   valid and the thread is plain's;
 * - https://github.com/langchain-ai/langchainjs/pull/10693 "derive middleware hook state from
 *   invocation state": `updateState` as the stack's own node (`threadwise/turn-admission.before_agent`)
 *   then `invoke(null)`, against plain's `updateState` as `__start__`: the model answers the
 *   written message in both, the threads match.
 */
import { AIMessage, type BaseMessage, HumanMessage, type ToolMessage } from "@langchain/core/messages";
import { Command, interrupt } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { createMiddleware, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import {
  expectAccepted,
  expectSameThread,
  GRAPH_OPS_CASES,
  GRAPH_OPS_TEXT,
  graphOpsAgents,
  graphOpsLabel,
  graphOpsPair,
  type ReportGraph,
  requests,
  storedMessages,
  threadShape,
  warmGraphOps,
  wholeThread,
} from "./support/report-agent.js";

const both = graphOpsPair;

const confirm = tool(async ({ what }: { what: string }) => `confirmed ${what}: ${String(interrupt({ question: `confirm ${what}?` }))}`, {
  name: "confirm",
  description: "Asks the user to confirm.",
  schema: z.object({ what: z.string() }),
});

/** `ASK <what>`: a `confirm` call beside a `lookup` (ids from the text's length, the same on both agents). */
const askMore = (text: string) => {
  const ask = /^ASK (.+)$/.exec(text);
  if (!ask) return undefined;
  return new AIMessage({
    content: "",
    tool_calls: [
      { id: `ask_${text.length}_0`, name: "confirm", args: { what: ask[1] as string }, type: "tool_call" as const },
      { id: `ask_${text.length}_1`, name: "lookup", args: { n: 7 }, type: "tool_call" as const },
    ],
  });
};

describe.each(GRAPH_OPS_CASES)("public reports, graph operations 7 (%o)", (c) => {
  const t = GRAPH_OPS_TEXT[c.lang];

  it(`langgraph#2256: stream with subgraphs and values, updates and messages at once while summarizing: no summary among the messages, the last values is the thread (${graphOpsLabel(c)})`, async () => {
    const a = graphOpsAgents(c);
    const cfg = { configurable: { thread_id: `stream-modes-${c.lang}-${c.archive}` } };
    for (const [name, target] of both(a)) {
      let lastValues: BaseMessage[] = [];
      const texts: string[] = [];
      const modes = new Set<string>();
      for (let i = 1; i <= 8; i += 1) {
        const text = i === 5 ? `${t.turn(i)}\nPARALLEL 2` : t.turn(i);
        const stream = await target.stream(
          { messages: [new HumanMessage(text)] },
          { ...cfg, subgraphs: true, streamMode: ["values", "updates", "messages"] },
        );
        for await (const chunk of stream as AsyncIterable<[string[], string, unknown]>) {
          expect(Array.isArray(chunk) && chunk.length === 3, `${name}: ${JSON.stringify(chunk).slice(0, 80)}`).toBe(true);
          const [namespace, mode, payload] = chunk;
          expect(namespace, name).toEqual([]);
          modes.add(mode);
          if (mode === "values") lastValues = (payload as { messages?: BaseMessage[] }).messages ?? [];
          if (mode === "messages") texts.push(messageText((payload as [BaseMessage])[0]));
        }
        const head = (await target.getState(cfg)).values.messages ?? [];
        expect(threadShape(lastValues), `${name} turn ${i}`).toEqual(threadShape(head));
      }
      expect([...modes].sort(), name).toEqual(["messages", "updates", "values"]);
      expect(
        texts.filter((x) => x.includes("summary")),
        name,
      ).toEqual([]);
    }
    expect(requests(a.m).some((r) => r.some((m) => messageText(m).includes("요약 summary")))).toBe(true);
    await expectSameThread(a, cfg.configurable.thread_id);
    expectAccepted(a.m);
  });

  it(`CopilotKit#6201: interrupt() in a tool beside a parallel call, resumed with Command({ resume }): one result per call, stored as plain stores them (${graphOpsLabel(c)})`, async () => {
    const a = graphOpsAgents({ ...c, tools: [confirm], more: askMore });
    const cfg = { configurable: { thread_id: `tool-interrupt-${c.lang}-${c.archive}` } };
    for (const [name, target] of both(a)) {
      await warmGraphOps(target, c.lang, cfg, 5);
      const paused = (await target.invoke({ messages: [new HumanMessage(`ASK ${t.note}`)] }, cfg)) as { __interrupt__?: unknown[] };
      expect(paused.__interrupt__?.length, name).toBe(1);
      await target.invoke(new Command({ resume: c.lang === "ko" ? "네" : "yes" }), cfg);
      await warmGraphOps(target, c.lang, cfg, 3, 6);
      const stored =
        name === "agent"
          ? await wholeThread(a, cfg.configurable.thread_id)
          : await storedMessages(target as never, cfg.configurable.thread_id);
      const results = stored.filter((m) => m.getType() === "tool").map((m) => (m as ToolMessage).tool_call_id);
      expect(results.filter((id) => id.startsWith("ask_")).sort(), name).toEqual([
        `ask_${`ASK ${t.note}`.length}_0`,
        `ask_${`ASK ${t.note}`.length}_1`,
      ]);
      expect(new Set(results).size, name).toBe(results.length);
    }
    await expectSameThread(a, cfg.configurable.thread_id);
    expectAccepted(a.m);
  });

  it(`langgraph#6900: getStateHistory filtered by source "update", paged by limit and before, yields the update checkpoints of the unfiltered history, as many as plain's (${graphOpsLabel(c)})`, async () => {
    const a = graphOpsAgents(c);
    const cfg = { configurable: { thread_id: `history-filter-${c.lang}-${c.archive}` } };
    const counts: number[] = [];
    for (const [name, target] of both(a as ReturnType<typeof graphOpsAgents>)) {
      await warmGraphOps(target as ReportGraph, c.lang, cfg, 3);
      await target.updateState(cfg, { messages: [new AIMessage(t.note)] });
      await warmGraphOps(target, c.lang, cfg, 3, 4);
      await target.updateState(cfg, { messages: [new AIMessage(t.fixed)] });
      await target.invoke({ messages: [new HumanMessage(t.after)] }, cfg);
      const history = async (options: object) => {
        const out: Array<{ id: string; shape: unknown }> = [];
        for await (const s of target.getStateHistory(cfg, options))
          out.push({ id: String(s.config.configurable?.checkpoint_id), shape: [s.metadata?.source, threadShape(s.values.messages ?? [])] });
        return out;
      };
      const all: Array<{ id: string; shape: unknown }> = [];
      for await (const s of target.getStateHistory(cfg))
        if (s.metadata?.source === "update")
          all.push({ id: String(s.config.configurable?.checkpoint_id), shape: [s.metadata?.source, threadShape(s.values.messages ?? [])] });
      expect(all.length, name).toBeGreaterThanOrEqual(2);
      expect(await history({ filter: { source: "update" } }), name).toEqual(all);
      const paged: Array<{ id: string; shape: unknown }> = [];
      for (let before: string | undefined; ; ) {
        const page = await history({
          filter: { source: "update" },
          limit: 1,
          ...(before ? { before: { configurable: { checkpoint_id: before } } } : {}),
        });
        paged.push(...page);
        if (page.length < 1) break;
        before = page.at(-1)?.id;
      }
      expect(paged, name).toEqual(all);
      counts.push(all.length);
    }
    expect(counts[0]).toBe(counts[1]);
    await expectSameThread(a, cfg.configurable.thread_id);
    expectAccepted(a.m);
  });

  it(`langchainjs#11652: a user's afterModel hook adds a message and jumps back to the model: every request is valid, the thread is plain's (${graphOpsLabel(c)})`, async () => {
    const middleware = () => [
      createMiddleware({
        name: "again",
        afterModel: {
          canJumpTo: ["model"],
          hook: (state) => {
            const last = state.messages.at(-1) as BaseMessage;
            if (last.getType() !== "ai" || !messageText(last).includes("AGAIN")) return undefined;
            return { messages: [new HumanMessage(`${t.after} (again)`)], jumpTo: "model" as const };
          },
        },
      }),
    ];
    const a = graphOpsAgents({ ...c, middleware });
    const cfg = { configurable: { thread_id: `jump-model-${c.lang}-${c.archive}` } };
    for (const [, target] of both(a)) {
      await warmGraphOps(target, c.lang, cfg, 5);
      await target.invoke({ messages: [new HumanMessage(`AGAIN ${t.note}`)] }, cfg);
      await target.invoke({ messages: [new HumanMessage(`AGAIN ${t.turn(9)}\nPARALLEL 2`)] }, cfg);
      await warmGraphOps(target, c.lang, cfg, 3, 6);
    }
    const stackSaw = requests(a.m).map((r) => messageText(r.at(-1) as BaseMessage));
    expect(stackSaw).toContain(`${t.after} (again)`);
    await expectSameThread(a, cfg.configurable.thread_id);
    expectAccepted(a.m);
  });

  it(`langchainjs#10693: updateState as the stack's own before_agent node, then invoke(null), as plain's updateState as __start__ (${graphOpsLabel(c)})`, async () => {
    const a = graphOpsAgents(c);
    const cfg = { configurable: { thread_id: `as-our-node-${c.lang}-${c.archive}` } };
    for (const [name, target] of both(a)) {
      await warmGraphOps(target, c.lang, cfg, 6);
      const asNode = name === "agent" ? "threadwise/turn-admission.before_agent" : "__start__";
      await target.updateState(cfg, { messages: [new HumanMessage(t.after)] }, asNode);
      await target.invoke(null, cfg);
      const last = (await target.getState(cfg)).values.messages?.at(-1) as BaseMessage;
      expect(messageText(last), name).toBe(`ok: ${t.after}`);
      await warmGraphOps(target, c.lang, cfg, 2, 7);
    }
    await expectSameThread(a, cfg.configurable.thread_id);
    expectAccepted(a.m);
  });
});
