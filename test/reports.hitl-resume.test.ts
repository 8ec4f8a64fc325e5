/**
 * Resuming a human-in-the-loop interrupt with the head's `checkpoint_id` in the config, as LangGraph
 * Studio and the LangGraph API server send every resume.
 *
 * - https://github.com/langchain-ai/langgraph/issues/7361 "When resume from a specific
 *   checkpoint_id, it becomes replay" (the graph ran from its start and the tool never ran) and
 *   https://github.com/langchain-ai/langgraph/pull/7561 (a resume that carries the head's
 *   checkpoint_id must behave as one with the thread id only);
 * - https://github.com/LibreChat-AI/agents/pull/180 "stabilize HITL checkpoint resume" (resume
 *   against the checkpoint that holds the interrupt).
 *
 * The stack's saver is compared with LangGraph's MemorySaver on the same run: the stored thread
 * and every answer must be the same, and the next turn goes on from the resumed head.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { Command, MemorySaver } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { strictModel } from "@threadwise/core/testing";
import { createAgent, humanInTheLoopMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { book, isTool, lastOf, lookup, stackAgent } from "./support/report-agent.js";

function bookingModel() {
  let n = 0;
  return strictModel({
    answer: (messages) => {
      const last = lastOf(messages);
      if (isTool(last)) return `done: ${messageText(last)}`;
      if (messageText(last).startsWith("book")) {
        n += 1;
        return new AIMessage({
          content: "",
          tool_calls: [{ id: `call_book_${n}`, name: "book", args: { seat: "12A" }, type: "tool_call" }],
        });
      }
      return `ok: ${messageText(last)}`;
    },
  });
}

/** A turn interrupted for review, resumed (approve) with the head's full config, then one more turn. */
async function run(agent: ReturnType<typeof stackAgent>["agent"]) {
  const config = { configurable: { thread_id: "resume-at-head" } };
  await agent.invoke({ messages: [new HumanMessage("book seat 12A")] }, config);
  const paused = await agent.graph.getState(config);
  const interrupted = paused.tasks.some((task) => (task.interrupts ?? []).length > 0);
  const head = paused.config;
  await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }) as never, head as never);
  const resumed = await agent.graph.getState(config);
  await agent.invoke({ messages: [new HumanMessage("thanks")] }, config);
  const final = await agent.graph.getState(config);
  const texts = (state: { values: unknown }) =>
    ((state.values as { messages?: BaseMessage[] }).messages ?? []).map((m) => `${m.getType()}:${messageText(m)}`);
  return { interrupted, resumed: texts(resumed), final: texts(final), next: [...resumed.next] };
}

describe("public reports: resuming an interrupt with the head's checkpoint_id", () => {
  it("the stack's savers resume as MemorySaver does: the tool runs once, the answer follows, the next turn goes on from it", async () => {
    const reference = await run(
      createAgent({
        model: bookingModel(),
        tools: [lookup, book],
        systemPrompt: "You are a helpful assistant.",
        checkpointer: new MemorySaver(),
        middleware: [humanInTheLoopMiddleware({ interruptOn: { book: true } })],
      }) as never,
    );
    expect(reference.interrupted).toBe(true);
    expect(reference.resumed).toEqual(["human:book seat 12A", "ai:", "tool:booked seat 12A", "ai:done: booked seat 12A"]);
    const dir = mkdtempSync(join(tmpdir(), "tw-reports-resume-"));
    try {
      for (const backend of ["in_memory", "sqlite"] as const) {
        const model = bookingModel();
        const { agent } = stackAgent({
          backend,
          sqlitePath: join(dir, `${backend}.sqlite`),
          windowSize: 6,
          model,
          extra: [humanInTheLoopMiddleware({ interruptOn: { book: true } })],
        });
        const ours = await run(agent);
        expect(ours, backend).toEqual(reference);
        expect(model.providerLog.rejections).toBe(0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
