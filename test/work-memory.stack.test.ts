/**
 * workMemory and historySeed in a stack with windowTrim, on a SQLite checkpointer: the envelope
 * and the seed persist across agent instances (a restart), the envelope survives the window, and
 * the seeded thread is the one the window trims.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { readSummarySlot, systemText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { historySeed } from "@threadwise/history-seed";
import { memoryStack } from "@threadwise/memory";
import { windowTrim } from "@threadwise/window-trim";
import { workMemory } from "@threadwise/work-memory";
import { createAgent, createMiddleware } from "langchain";
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
    // The window: the newest 4 messages at most, although the stored thread holds 9, started on a
    // user message (core's default startOn "human"): 3.
    expect(seen.slice(1).map((m) => m.text)).toEqual(["book a taxi", "Done: book a taxi.", "what did I book?"]);
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

// memoryStack places workMemory after windowTrim and summarize, not first: no middleware before it
// in the stack has an afterAgent hook, so its afterAgent is still the last to run once your output
// checks are listed after the stack's middleware (packages/memory/README.md), and context blocks are
// sorted by kind, so its wrapModelCall place changes no request.
describe("workMemory's place in memoryStack", () => {
  const refusal = () =>
    createMiddleware({
      name: "output-check",
      afterAgent: () => ({ messages: [new AIMessage("I can't share that.")] }),
    });

  async function run(mine: "after-stack" | "before-stack") {
    const condenser = scriptedModel((messages: BaseMessage[]) => `kept ${(messages.at(-1)?.text ?? "").split("\n")[1]}`);
    const stack = memoryStack({
      backend: "in_memory",
      workMemory: true,
      models: { summarize: scriptedModel(() => "summary") as never, workMemory: condenser as never },
      persistTrimKeepGroups: 4,
      recallMaxTokens: false,
      logger: false,
      env: {},
    });
    // Before workMemory: no afterAgent hook; after it: persistTrim's (which runs before its commit).
    const at = stack.middleware.findIndex((m) => m.name === "threadwise/work-memory");
    expect(stack.middleware.slice(0, at).filter((m) => m.afterAgent)).toEqual([]);
    expect(
      stack.middleware
        .slice(at + 1)
        .filter((m) => m.afterAgent)
        .map((m) => m.name),
    ).toContain("threadwise/persist-trim");
    const middleware = mine === "after-stack" ? [...stack.middleware, refusal()] : [refusal(), ...stack.middleware];
    const agent = createAgent({ model: scriptedModel(() => "The vault code is 4417."), checkpointer: stack.checkpointer, middleware });
    const config = { configurable: { thread_id: `wm-stack-${mine}` } };
    await agent.invoke({ messages: [new HumanMessage("open the vault")] }, config);
    return readSummarySlot((await agent.graph.getState(config)).values).workMemory?.entries.map((e) => e.text) ?? [];
  }

  it("an output check listed after the stack's middleware runs before workMemory's commit: nothing stored", async () => {
    expect(await run("after-stack")).toEqual([]);
  });

  it("listed before the stack (the order to avoid), the answer it replaced is stored", async () => {
    expect(await run("before-stack")).toEqual(["kept The vault code is 4417."]);
  });
});
