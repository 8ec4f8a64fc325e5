/**
 * The stack under LangGraph's `durability: "exit"` and `"sync"` (checkpoints only at the run's end
 * or interrupt, or written before each step goes on).
 *
 * - https://github.com/LibreChat-AI/agents/pull/275 "default durability to 'exit' when a
 *   checkpointer is active" (an agents SDK that sets `exit` for every run that has a checkpointer:
 *   its users' memory middlewares run under it);
 * - https://github.com/langchain-ai/langgraph/issues/8298 (checkpoints not written mid-session: a
 *   state that read fine in the run was lost to the next one).
 *
 * Under `exit` the stack's own writes of a turn (summary slot, recall and fact state, turn
 * admission) are only stored with the run's last checkpoint. Each durability must give the same
 * requests and the same stored thread as the default, over tool loops, summaries, an interrupt
 * and its resume, and a fresh stack reading the thread afterwards.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { messageText, readSummarySlot } from "@threadwise/core";
import { strictModel } from "@threadwise/core/testing";
import { humanInTheLoopMiddleware } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { isTool, lastOf, requests, stackAgent, storedMessages, summarizerModel } from "./support/report-agent.js";

const TURNS = ["hello", "PARALLEL 2", "and then?", "PARALLEL 3", "BOOK 7", "thanks", "PARALLEL 1", "more", "bye"];

/** `BOOK <seat>` calls `book` (reviewed by a human); `PARALLEL <k>` gets k lookups; after results it reports them. */
function bookingModel() {
  return strictModel({
    answer: (messages) => {
      const last = lastOf(messages);
      if (isTool(last))
        return `done with ${messages
          .filter(isTool)
          .map((m) => messageText(m))
          .join(", ")}`;
      const text = messageText(last);
      const seat = /^BOOK (\w+)/.exec(text);
      if (seat)
        return new AIMessage({
          content: "",
          tool_calls: [{ id: `call_book_${seat[1]}`, name: "book", args: { seat: seat[1] }, type: "tool_call" }],
        });
      const parallel = /^PARALLEL (\d+)/.exec(text);
      if (parallel)
        return new AIMessage({
          content: "",
          tool_calls: Array.from({ length: Number(parallel[1]) }, (_, i) => ({
            id: `call_${messages.length}_${i}`,
            name: "lookup",
            args: { n: i },
            type: "tool_call" as const,
          })),
        });
      return `ok: ${text}`;
    },
  });
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function open(sqlitePath: string) {
  const summarizer = summarizerModel((call) => `summary ${call + 1}`);
  const made = stackAgent({
    backend: "sqlite",
    sqlitePath,
    model: bookingModel(),
    windowSize: 4,
    summarizeThreshold: 8,
    summarizer: summarizer.model,
    recallMaxTokens: 400,
    extra: [humanInTheLoopMiddleware({ interruptOn: { book: true } }) as never],
  });
  return { ...made, summarizer };
}

async function run(durability: "async" | "sync" | "exit") {
  const dir = mkdtempSync(join(tmpdir(), "tw-durability-"));
  dirs.push(dir);
  const sqlitePath = join(dir, "thread.sqlite");
  const { agent, model, summarizer } = open(sqlitePath);
  const threadId = "durability";
  const config = { configurable: { thread_id: threadId }, durability };
  let interrupts = 0;
  for (const text of TURNS) {
    const out = (await agent.invoke({ messages: [new HumanMessage(text)] }, config as never)) as { __interrupt__?: unknown[] };
    if (out.__interrupt__?.length) {
      interrupts += 1;
      await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }) as never, config as never);
    }
  }
  const state = await agent.graph.getState({ configurable: { thread_id: threadId } });
  // A fresh stack over the same file (another process) takes the next turn.
  const fresh = open(sqlitePath);
  await fresh.agent.invoke({ messages: [new HumanMessage("after reopen")] }, config as never);
  const show = (messages: BaseMessage[]) => messages.map((m) => `${m.getType()}:${messageText(m)}`);
  return {
    interrupts,
    requests: requests(model).map(show),
    freshRequest: requests(fresh.model).map(show),
    stored: show(await storedMessages(fresh.agent.graph as never, threadId)),
    summary: readSummarySlot(state.values).summary?.text,
    summarizerCalls: summarizer.inputs.length,
    rejections: model.providerLog.rejections + fresh.model.providerLog.rejections,
  };
}

describe("public reports: durability exit and sync", () => {
  it("every durability gives the default's requests, stored thread and summary", async () => {
    const reference = await run("async");
    expect(reference.rejections).toBe(0);
    expect(reference.summary).toBeDefined();
    expect(reference.interrupts).toBe(1);
    expect(reference.stored).toContain("tool:booked seat 7");
    for (const durability of ["sync", "exit"] as const) {
      const other = await run(durability);
      expect(other.rejections, durability).toBe(0);
      expect(other.stored, durability).toEqual(reference.stored);
      expect(other.requests, durability).toEqual(reference.requests);
      expect(other.summary, durability).toBe(reference.summary);
      expect(other.summarizerCalls, durability).toBe(reference.summarizerCalls);
      expect(other.freshRequest, durability).toEqual(reference.freshRequest);
    }
  });
});
