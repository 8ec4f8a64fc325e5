/**
 * LangGraph operations no fuzzer or report suite did before (session 61, brief item 3), on a thread
 * the stack windows, summarizes and (archive on) archives. `memoryStack` (window 4, summary at 6),
 * English and Korean, archive off and on; oracle: plain `createAgent` on a `MemorySaver` running
 * the same operations, and report-agent's `expectAccepted` (strict validator for the four providers,
 * no prefill, and the wire check) on every request the stack sent.
 *
 * - The agent invoked inside a node of a parent graph on the stack's own checkpointer
 *   (`__pregel_checkpointer`) and `checkpoint_ns: ""`: LangGraph starts it from the parent run's
 *   checkpoint (the `checkpoint_map` it inherits), which the agent's thread does not hold, so each
 *   run starts the thread over (plain's thread keeps 2 messages a run). Was: the first run stored,
 *   the second refused `stale-parent`, retryable, and every retry refused again. Now refused at the
 *   first run, before any model call, with a `ThreadwiseConfigError` naming
 *   `configurable.checkpoint_map` and the way out (`checkpoint_map: {}`), with which the thread
 *   goes on as plain's.
 * - A static breakpoint before the model node (`interruptBefore: ["model_request"]`, the stack's
 *   run with `turnEndCallbacks`), then an `updateState` edit of the stopped state and `invoke(null)`,
 *   and another stopped run resumed with `Command({ resume })`: the thread is plain's.
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { Command, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { messageText, ThreadwiseConfigError } from "@threadwise/core";
import { ThreadwiseConcurrentTurnError, type ThreadwiseSaver, turnEndCallbacks } from "@threadwise/memory";
import { describe, expect, it } from "vitest";
import {
  expectAccepted,
  expectSameThread,
  GRAPH_OPS_CASES,
  GRAPH_OPS_TEXT,
  graphOpsAgents,
  graphOpsLabel,
  graphOpsPair,
  type ReportGraph,
  storedMessages,
  warmGraphOps,
} from "./support/report-agent.js";

const both = graphOpsPair;

describe.each(GRAPH_OPS_CASES)("graph operations 2 (%o)", (c) => {
  const t = GRAPH_OPS_TEXT[c.lang];

  it(`an agent invoked in a parent's node on its own checkpointer with checkpoint_ns "": refused at once, not retryable, before any model call; with checkpoint_map {} the thread is plain's (${graphOpsLabel(c)})`, async () => {
    const a = graphOpsAgents(c);
    const savers = { agent: a.stack.checkpointer, plain: (a.plain as unknown as { checkpointer: unknown }).checkpointer };
    const childOf = (mapped: boolean) => `child-${mapped}-${c.lang}-${c.archive}`;
    const parentOf = (name: string, mapped: boolean) =>
      new StateGraph(MessagesAnnotation)
        .addNode("ask", async (s: { messages: BaseMessage[] }) => {
          const target = name === "agent" ? a.agent : a.plain;
          const configurable = {
            thread_id: childOf(mapped),
            checkpoint_ns: "",
            __pregel_checkpointer: savers[name as "agent" | "plain"],
            ...(mapped ? { checkpoint_map: {} } : {}),
          };
          const out = (await target.invoke(
            { messages: [new HumanMessage(messageText(s.messages.at(-1) as BaseMessage))] },
            { configurable },
          )) as {
            messages: BaseMessage[];
          };
          return { messages: [new AIMessage(`${out.messages.length}: ${messageText(out.messages.at(-1) as BaseMessage)}`)] };
        })
        .addEdge(START, "ask")
        .compile({ checkpointer: new MemorySaver() }) as unknown as ReportGraph;
    const text = (i: number) => (i === 4 ? `${t.turn(i)}\nPARALLEL 2` : t.turn(i));

    // Inherited start: plain starts the thread over each run; the stack refuses each run the same way.
    const plainParent = parentOf("plain", false);
    const plainCounts: string[] = [];
    for (let i = 1; i <= 3; i += 1) {
      const out = (await plainParent.invoke({ messages: [new HumanMessage(text(i))] }, { configurable: { thread_id: "p" } })) as {
        messages: BaseMessage[];
      };
      plainCounts.push(messageText(out.messages.at(-1) as BaseMessage).split(":")[0] as string);
    }
    expect(plainCounts).toEqual(["2", "2", "2"]);
    const stackParent = parentOf("agent", false);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const error = await stackParent
        .invoke({ messages: [new HumanMessage(text(1))] }, { configurable: { thread_id: `p-${attempt}` } })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(ThreadwiseConcurrentTurnError.find(error)).toBeUndefined();
      const refused = ThreadwiseConfigError.find(error);
      expect(refused?.option).toBe("configurable.checkpoint_map");
      expect(refused?.message).toContain("checkpoint_map: {}");
    }
    expect(a.m.calls).toHaveLength(0);
    expect(await storedMessages(a.agent as never, childOf(false))).toEqual([]);

    // The way out the error names: the thread goes on from its newest checkpoint, as plain's.
    for (const [name] of both(a)) {
      const parent = parentOf(name, true);
      for (let i = 1; i <= 8; i += 1)
        await parent.invoke({ messages: [new HumanMessage(text(i))] }, { configurable: { thread_id: `q-${name}` } });
    }
    await expectSameThread(a, childOf(true));
    expectAccepted(a.m);
  });

  it(`interruptBefore the model node, then an updateState edit and invoke(null), and a Command({ resume }): the thread is plain's (${graphOpsLabel(c)})`, async () => {
    const a = graphOpsAgents(c);
    const cfg = { configurable: { thread_id: `before-model-${c.lang}-${c.archive}` } };
    for (const [name, target] of both(a)) {
      const stop = {
        ...cfg,
        interruptBefore: ["model_request"],
        ...(name === "agent" ? { callbacks: turnEndCallbacks(a.stack.checkpointer as ThreadwiseSaver) } : {}),
      };
      await warmGraphOps(target, c.lang, cfg, 6);
      await target.invoke({ messages: [new HumanMessage(`${t.after}\nPARALLEL 2`)] }, stop);
      expect((await target.getState(cfg)).values.messages?.at(-1)?.getType(), name).toBe("human");
      await target.updateState(cfg, { messages: [new HumanMessage(t.note)] });
      await target.invoke(null, cfg);
      await target.invoke({ messages: [new HumanMessage(t.turn(7))] }, stop);
      await target.invoke(new Command({ resume: "go" }), cfg);
      await warmGraphOps(target, c.lang, cfg, 2, 8);
    }
    await expectSameThread(a, cfg.configurable.thread_id);
    expectAccepted(a.m);
  });
});
