/**
 * The cached summary survives a restart (spec R12): a new saver on the same SQLite file, or a new
 * pool and PostgresSaver on the same schema, hands the next re-summary the previous summary.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { messageText, readSummarySlot } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { summarize } from "@threadwise/summarize";
import { createAgent } from "langchain";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { freshDatabase, isPglite, testPoolMax } from "./support/postgres.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function agentModel() {
  return scriptedModel((messages) => {
    const user = [...messages].reverse().find((m) => m.getType() === "human" && String(m.id).startsWith("u"));
    const k = String(user?.id).slice(1);
    return new AIMessage({ id: `a${k}`, content: `a${k}` });
  });
}

/** One process's life: an agent over `saver`, with a summarizer answering `<prefix>1`, `<prefix>2`, ... */
function boot(saver: BaseCheckpointSaver, prefix: string) {
  const model = agentModel();
  const summarizer = scriptedModel((_m, call) => `${prefix}${call + 1}`);
  // window 2, threshold 6: first summary at turn 4 (7 messages), then every 2 turns.
  const agent = createAgent({
    model,
    checkpointer: saver,
    middleware: [summarize({ model: summarizer, windowSize: 2, threshold: 6, startOn: "any", logger: false })],
  });
  const turn = (thread: string, k: number) =>
    agent.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: `u${k}` })] }, { configurable: { thread_id: thread } });
  return { agent, model, summarizer, turn };
}

async function restartCase(open: () => Promise<BaseCheckpointSaver>, close: () => Promise<void>) {
  const thread = `restart-${Math.random().toString(36).slice(2)}`;
  const first = boot(await open(), "FIRST-");
  for (let k = 1; k <= 5; k += 1) await first.turn(thread, k);
  expect(first.summarizer.calls).toHaveLength(1);
  await close();

  const second = boot(await open(), "SECOND-");
  const config = { configurable: { thread_id: thread } };
  const restored = await second.agent.graph.getState(config);
  expect(readSummarySlot(restored.values).summary).toMatchObject({ text: "FIRST-1", coveredThroughId: "u3", coveredCount: 5 });
  expect(restored.values.messages).toHaveLength(10);

  await second.turn(thread, 6); // 11 messages: 4 more left the window since the summary, due
  expect(second.summarizer.calls).toHaveLength(1);
  expect(messageText(second.summarizer.calls[0]?.messages[1] as BaseMessage)).toBe(
    "<previous_summary>\nFIRST-1\n</previous_summary>\n\n<new_messages>\nAssistant: a3\nUser: u4\nAssistant: a4\nUser: u5\n</new_messages>",
  );
  const seen = second.model.calls[0]?.messages ?? [];
  expect(messageText(seen[0] as BaseMessage)).toBe("[Previous conversation summary]\nSECOND-1");
  const after = await second.agent.graph.getState(config);
  expect(readSummarySlot(after.values).summary).toMatchObject({ text: "SECOND-1", coveredThroughId: "u5", coveredCount: 9 });
  expect(after.values.messages).toHaveLength(12);
}

describe("summary cache across a restart", () => {
  it("SqliteSaver: a new saver on the same file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tw-summarize-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, "threads.db");
    let saver: SqliteSaver | undefined;
    await restartCase(
      async () => {
        saver = SqliteSaver.fromConnString(file);
        return saver;
      },
      async () => {
        (saver as unknown as { db: { close(): void } }).db.close();
      },
    );
  });

  // 12 turns on embedded PGlite took 71 s on a loaded 2-core machine (pnpm test on a clone without
  // PostgreSQL), past the 60 s default: a guard against a hang, not a speed check.
  it("PostgresSaver: a new pool and saver on the same schema", { timeout: 240_000 }, async () => {
    const database = await freshDatabase("twsum");
    let pool: pg.Pool | undefined;
    await restartCase(
      async () => {
        // PGlite refuses a connection for a moment after a pool ended: retry briefly.
        for (let attempt = 1; ; attempt += 1) {
          pool = new pg.Pool({ connectionString: database.url, max: testPoolMax() });
          const saver = new PostgresSaver(pool, undefined, { schema: database.schema });
          try {
            await saver.setup();
            return saver;
          } catch (error) {
            await pool.end().catch(() => {});
            if (attempt >= 10) throw error;
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
        }
      },
      async () => {
        await pool?.end();
      },
    );
    // On PGlite the schema goes through the open pool: a new connection right after `end()` is refused.
    if (isPglite()) await pool?.query(`DROP SCHEMA IF EXISTS "${database.schema}" CASCADE`);
    await pool?.end();
    if (!isPglite()) await database.drop();
  });
});
