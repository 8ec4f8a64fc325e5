/**
 * factRecall facts survive a restart (spec R16): a fresh agent on the same SqliteSaver file or
 * PostgresSaver schema recalls what an earlier agent process stored, and a second thread on the
 * same storage sees none of it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { systemText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { FACTS_STATE_KEY, type FactSlot, factRecall } from "@threadwise/fact-recall";
import { createAgent } from "langchain";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { freshDatabase, isPglite, testPoolMax } from "./support/postgres.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const sqliteDir = mkdtempSync(join(tmpdir(), "tw-facts-"));
cleanups.push(() => rmSync(sqliteDir, { recursive: true, force: true }));
let postgres: { pool: pg.Pool; schema: string } | undefined;

const cases: Array<{ name: string; open: () => Promise<BaseCheckpointSaver> }> = [
  { name: "SqliteSaver", open: async () => SqliteSaver.fromConnString(join(sqliteDir, "facts.db")) },
  {
    name: "PostgresSaver",
    open: async () => {
      if (!postgres) {
        const database = await freshDatabase("twfacts");
        const pool = new pg.Pool({ connectionString: database.url, max: testPoolMax() });
        postgres = { pool, schema: database.schema };
        cleanups.push(async () => {
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

function newAgent(checkpointer: BaseCheckpointSaver) {
  const model = scriptedModel(() => "ok");
  const agent = createAgent({ model, systemPrompt: "S", checkpointer, middleware: [factRecall({ promptContextMode: "legacy_system" })] });
  return { agent, model };
}

describe.each(cases)("factRecall on $name", ({ open }) => {
  it("recalls facts stored by an earlier agent, only in their own thread", async () => {
    const first = newAgent(await open());
    const config = { configurable: { thread_id: "facts-1" } };
    for (const content of ["I live in Seoul.", "저는 개발자예요.", "I moved to Busan last month."]) {
      await first.agent.invoke({ messages: [new HumanMessage(content)] }, config);
    }

    // A new agent and a new saver on the same storage: what a restarted process sees.
    const second = newAgent(await open());
    const slot = (await second.agent.graph.getState(config)).values[FACTS_STATE_KEY] as FactSlot;
    expect(slot.facts.map((f) => [f.key, f.value, f.previousValue])).toEqual([
      ["user|residence", "Busan", "Seoul"],
      ["user|work", "개발자", undefined],
    ]);
    await second.agent.invoke({ messages: [new HumanMessage("Where do I live now?")] }, config);
    expect(systemText(second.model.calls[0]?.messages[0] as never)).toContain(
      "[Known facts about the user]\n- User moved to Busan and lives there",
    );

    await second.agent.invoke({ messages: [new HumanMessage("Where do I live now?")] }, { configurable: { thread_id: "facts-2" } });
    expect(systemText(second.model.calls[1]?.messages[0] as never)).toBe("S");
    const other = (await second.agent.graph.getState({ configurable: { thread_id: "facts-2" } })).values[FACTS_STATE_KEY] as FactSlot;
    expect(other.facts).toEqual([]);
    expect(((second.model.calls[1]?.messages ?? []) as BaseMessage[]).map((m) => m.getType())).toEqual(["system", "human"]);
  });
});
