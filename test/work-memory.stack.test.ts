/**
 * workMemory and historySeed in a stack with windowTrim, on a SQLite checkpointer: the envelope
 * and the seed persist across agent instances (a restart), the envelope survives the window, and
 * the seeded thread is the one the window trims.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { readSummarySlot, systemText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { historySeed } from "@threadwise/history-seed";
import { windowTrim } from "@threadwise/window-trim";
import { workMemory } from "@threadwise/work-memory";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "tw-work-memory-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function build(path: string) {
  const model = scriptedModel((messages: BaseMessage[]) => {
    const user = messages.filter((m) => m.getType() === "human").at(-1)?.text ?? "";
    return `Done: ${user}.`;
  });
  const condenser = scriptedModel((messages: BaseMessage[]) => `kept ${(messages.at(-1)?.text ?? "").split("\n")[1]}`);
  const checkpointer = SqliteSaver.fromConnString(path);
  const agent = createAgent({
    model,
    systemPrompt: "You are a booking assistant.",
    checkpointer,
    middleware: [
      workMemory({ model: condenser, maxItems: 2, maxCharacters: 200, logger: false }),
      historySeed({ logger: false }),
      windowTrim({ maxMessages: 4, logger: false }),
    ],
  });
  return { agent, model, condenser };
}

describe("workMemory + historySeed + windowTrim on SQLite", () => {
  it("keeps the seed and the envelope across a restart, and places the envelope next to the window", async () => {
    const path = join(dir, "stack.sqlite");
    const config = { configurable: { thread_id: "ctx-stack" } };
    const first = build(path);
    await first.agent.invoke(
      { messages: [new HumanMessage("book seat 12A")] },
      { ...config, context: { seedHistory: [{ role: "user", parts: [{ kind: "text", text: "I am Mina" }] }] } },
    );
    await first.agent.invoke({ messages: [new HumanMessage("book hotel in Busan")] }, config);
    await first.agent.invoke({ messages: [new HumanMessage("book a taxi")] }, config);

    // A new process: a new agent on the same database file.
    const second = build(path);
    const slot = readSummarySlot((await second.agent.graph.getState(config)).values);
    expect(slot.workMemory?.entries.map((e) => e.text)).toEqual(["kept Done: book hotel in Busan.", "kept Done: book a taxi."]);
    await second.agent.invoke({ messages: [new HumanMessage("what did I book?")] }, config);
    const seen = (second.model.calls[0] as { messages: BaseMessage[] }).messages;
    expect(systemText(seen[0] as never)).toBe(
      "You are a booking assistant.\n\n[Work memory]\n- kept Done: book hotel in Busan.\n- kept Done: book a taxi.",
    );
    // The window: the newest 4 messages only, although the stored thread holds 9.
    expect(seen.slice(1).map((m) => m.text)).toEqual([
      "Done: book hotel in Busan.",
      "book a taxi",
      "Done: book a taxi.",
      "what did I book?",
    ]);
    const stored = ((await second.agent.graph.getState(config)).values as { messages: BaseMessage[] }).messages;
    expect(stored.map((m) => m.text)).toEqual([
      "I am Mina",
      "book seat 12A",
      // The seed ends on a user message: with the first question that is two user turns in a
      // row, which the model gets as one message (alternating roles).
      "Done: I am Mina\n\nbook seat 12A.",
      "book hotel in Busan",
      "Done: book hotel in Busan.",
      "book a taxi",
      "Done: book a taxi.",
      "what did I book?",
      "Done: what did I book?.",
    ]);
    expect(stored[0]?.id).toMatch(/^tw-seed-/);
    expect(readSummarySlot((await second.agent.graph.getState(config)).values).workMemory?.entries.map((e) => e.text)).toEqual([
      "kept Done: book a taxi.",
      "kept Done: what did I book?.",
    ]);
  });
});
