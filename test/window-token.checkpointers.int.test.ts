/**
 * windowTrim and tokenCap through createAgent on MemorySaver, SqliteSaver and PostgresSaver threads
 * across several turns (spec R2, R3, R4, R6): what the model saw, what the thread stores, the log.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { type BaseCheckpointSaver, MemorySaver } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createTokenCounter, findOrphans, type ThreadwiseLogger } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { tokenCap } from "@threadwise/token-cap";
import { windowTrim } from "@threadwise/window-trim";
import { createAgent, tool } from "langchain";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { freshDatabase, isPglite, testPoolMax } from "./support/postgres.js";

/** Index of the newest message of `type` (-1 when none); lib is ES2022, so no findLastIndex. */
function lastIndexOfType(messages: readonly BaseMessage[], type: string): number {
  for (let i = messages.length - 1; i >= 0; i -= 1) if (messages[i]?.getType() === type) return i;
  return -1;
}

interface SaverCase {
  name: string;
  /** A saver for the thread; called twice to check that a fresh agent on the same storage continues. */
  open: () => Promise<BaseCheckpointSaver>;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const memory = new MemorySaver();
const sqliteDir = mkdtempSync(join(tmpdir(), "tw-window-token-"));
cleanups.push(() => rmSync(sqliteDir, { recursive: true, force: true }));
let postgres: { pool: pg.Pool; schema: string } | undefined;

const cases: SaverCase[] = [
  { name: "MemorySaver", open: async () => memory },
  { name: "SqliteSaver", open: async () => SqliteSaver.fromConnString(join(sqliteDir, "threads.db")) },
  {
    name: "PostgresSaver",
    open: async () => {
      if (!postgres) {
        const database = await freshDatabase("twwin");
        const pool = new pg.Pool({ connectionString: database.url, max: testPoolMax() });
        postgres = { pool, schema: database.schema };
        cleanups.push(async () => {
          // On PGlite the schema goes through the pool: a second connection right after `end()` is refused.
          if (isPglite()) await pool.query(`DROP SCHEMA IF EXISTS "${database.schema}" CASCADE`);
          await pool.end();
          if (!isPglite()) await database.drop();
        });
      }
      const saver = new PostgresSaver(postgres.pool, undefined, { schema: postgres.schema });
      await saver.setup();
      return saver;
    },
  },
];

const lookup = tool(async ({ code }: { code: string }) => `Reservation ${code}: 2 passengers, economy, JFK to SEA on May 20.`, {
  name: "get_reservation_details",
  description: "Get the details of a reservation by its code.",
  schema: z.object({ code: z.string() }),
});

/** Turn n asks about reservation n; every odd turn the model looks it up first (ids repeat: call_1 every time). */
function airlineModel() {
  return scriptedModel((messages) => {
    const lastHuman = lastIndexOfType(messages, "human");
    const question = String(messages[lastHuman]?.content);
    const turn = Number(/#(\d+)/.exec(question)?.[1] ?? 0);
    const hasResult = messages.slice(lastHuman).some((m) => m.getType() === "tool");
    if (turn % 2 === 1 && !hasResult) {
      return new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "get_reservation_details", args: { code: `R${turn}` } }] });
    }
    return `Answer to #${turn}.`;
  });
}

function recordingLogger(): ThreadwiseLogger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => lines.push(m), warn: () => {} };
}

const contents = (messages: readonly BaseMessage[]) =>
  messages.map((m) =>
    m.getType() === "ai" && (m as AIMessage).tool_calls?.length ? `call:${(m as AIMessage).tool_calls?.[0]?.args.code}` : String(m.content),
  );

describe.each(cases)("windowTrim + tokenCap on $name", ({ name, open }) => {
  it("sends whole groups within both limits across five turns and a restart; stores everything", async () => {
    const threadId = `airline-${name}`;
    const config = { configurable: { thread_id: threadId } };
    const model = airlineModel();
    const logger = recordingLogger();
    const build = (checkpointer: BaseCheckpointSaver) =>
      createAgent({
        model,
        tools: [lookup],
        systemPrompt: "You are an airline support agent.",
        checkpointer,
        middleware: [windowTrim({ eviction: "sliding", maxMessages: 5, logger }), tokenCap({ maxTokens: 400, logger: false })],
      });
    let agent = build(await open());
    for (let turn = 1; turn <= 3; turn += 1) await agent.invoke({ messages: [new HumanMessage(`Question #${turn}?`)] }, config);
    // A new agent on the same storage (as after a process restart) continues the thread.
    agent = build(await open());
    for (let turn = 4; turn <= 5; turn += 1) await agent.invoke({ messages: [new HumanMessage(`Question #${turn}?`)] }, config);

    // Turns 1, 3, 5 make two model calls (tool call, then answer); 2 and 4 make one.
    expect(model.calls).toHaveLength(8);
    const views = model.calls.map((c) => contents(c.messages.slice(1)));
    expect(views[0]).toEqual(["Question #1?"]);
    expect(views[1]).toEqual(["Question #1?", "call:R1", "Reservation R1: 2 passengers, economy, JFK to SEA on May 20."]);
    // Turn 3, first call: the window of 5 cannot hold turn 1's tool group with the rest, so it starts
    // after it, on the next user message (default startOn "human": "Answer to #1." goes too).
    expect(views[3]).toEqual(["Question #2?", "Answer to #2.", "Question #3?"]);
    // The last call (turn 5's answer): 5 messages at most, and the tool pair of the run is whole.
    expect(views[7]).toEqual([
      "Question #4?",
      "Answer to #4.",
      "Question #5?",
      "call:R5",
      "Reservation R5: 2 passengers, economy, JFK to SEA on May 20.",
    ]);
    for (const call of model.calls) {
      const sent = call.messages.slice(1);
      expect(findOrphans(sent)).toEqual([]);
      expect(sent.length).toBeLessThanOrEqual(5);
      expect(sent.some((m) => m.getType() === "human")).toBe(true);
      // Every tool result sent is the stored original.
      for (const m of sent) if (m.getType() === "tool") expect(String(m.content)).toMatch(/^Reservation R\d: 2 passengers/);
    }
    const counter = createTokenCounter();
    for (const call of model.calls) expect(counter.countMessages(call.messages) + counter.countTools([lookup])).toBeLessThanOrEqual(400);

    const stored = ((await agent.graph.getState(config)).values as { messages: BaseMessage[] }).messages;
    // 5 questions + 5 answers + 3 calls + 3 results.
    expect(stored).toHaveLength(16);
    expect(stored.filter((m) => m instanceof ToolMessage || m.getType() === "tool")).toHaveLength(3);
    expect(logger.lines).toHaveLength(8);
    expect(logger.lines[7]).toBe("multiturn: thread_msgs=15 window=5+400tok sent_to_llm=5 has_prior=true");
  });

  it("a tight token cap keeps fewer whole groups than the window, on the same thread shape", async () => {
    const config = { configurable: { thread_id: `tight-${name}` } };
    const model = airlineModel();
    const agent = createAgent({
      model,
      tools: [lookup],
      checkpointer: await open(),
      middleware: [windowTrim({ eviction: "sliding", maxMessages: 50 }), tokenCap({ maxTokens: 120, logger: false })],
    });
    for (let turn = 2; turn <= 6; turn += 2) await agent.invoke({ messages: [new HumanMessage(`Question #${turn}?`)] }, config);
    const counter = createTokenCounter();
    const last = model.calls.at(-1)?.messages ?? [];
    expect(last.at(-1)?.content).toBe("Question #6?");
    expect(counter.countMessages(last) + counter.countTools([lookup])).toBeLessThanOrEqual(120);
    expect(findOrphans(last)).toEqual([]);
    const stored = ((await agent.graph.getState(config)).values as { messages: BaseMessage[] }).messages;
    expect(stored.map((m) => m.content)).toEqual([
      "Question #2?",
      "Answer to #2.",
      "Question #4?",
      "Answer to #4.",
      "Question #6?",
      "Answer to #6.",
    ]);
  });
});
