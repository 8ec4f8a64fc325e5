/**
 * Time travel on threadwise's savers (spec R38): forks (`invoke` from an older `checkpoint_id`),
 * `updateState` on an older checkpoint, replays (`invoke(null)` from an older checkpoint) and
 * `getStateHistory` give what LangGraph's own saver gives, side by side, on in_memory, SQLite,
 * PostgreSQL and PgBouncer (transaction mode).
 *
 * The reference is MemorySaver (and SqliteSaver for SQLite). Plain PostgresSaver is not one:
 * channel versions are integers, so two branches from one checkpoint write the same blob key and
 * `ON CONFLICT DO NOTHING` keeps the first branch's value (langgraphjs #1812). The test shows
 * plain PostgresSaver failing the scenario, so it proves the scenario reaches that bug, and
 * threadwise's PostgreSQL saver (unique channel versions) passing it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { MemorySaver } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { scriptedModel } from "@threadwise/core/testing";
import { createCheckpointer, migrate, resolveMemoryConfig, type ThreadwiseSaver, turnAdmission } from "@threadwise/memory";
import { createAgent, createMiddleware } from "langchain";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgbouncerUrl, sameDatabase, skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { freshDatabase } from "./support/postgres.js";

const text = (m: BaseMessage) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));
const humans = (messages: BaseMessage[]) => messages.filter((m) => m.getType() === "human").map(text);
/** Answers with every user message it saw, so a wrong branch shows in the answer. */
const model = () => scriptedModel((messages) => `saw ${humans(messages).join("|")}`);
/** The plain savers' agents get a no-op hook of the same name, so both graphs have the same nodes and steps. */
const sameNodes = createMiddleware({ name: "threadwise/turn-admission", beforeAgent: async () => undefined });

type Agent = ReturnType<typeof agentOn>;
function agentOn(checkpointer: BaseCheckpointSaver) {
  const admission = "registry" in checkpointer ? turnAdmission(checkpointer as ThreadwiseSaver) : sameNodes;
  return createAgent({ model: model(), checkpointer, middleware: [admission] });
}

interface Snapshot {
  values: BaseMessage[];
  source: string;
  step: number;
  next: string[];
  id: string;
  parent: string | undefined;
}

async function history(agent: Agent, thread: string): Promise<Snapshot[]> {
  const out: Snapshot[] = [];
  for await (const s of agent.graph.getStateHistory({ configurable: { thread_id: thread } }))
    out.push({
      values: (s.values as { messages?: BaseMessage[] }).messages ?? [],
      source: String(s.metadata?.source),
      step: Number(s.metadata?.step),
      next: [...s.next],
      id: String(s.config.configurable?.checkpoint_id),
      parent: s.parentConfig?.configurable?.checkpoint_id as string | undefined,
    });
  return out;
}

/**
 * Three turns, a fork from the end of turn 1, `updateState` on the end of turn 2 then a turn on
 * top of it, a replay of turn 3 from its input checkpoint; returns every answer, the final state
 * and the whole history with checkpoint ids replaced by their position (ids are time-based).
 */
async function scenario(agent: Agent, thread: string) {
  const cfg = { configurable: { thread_id: thread } };
  const answer = (result: { messages: BaseMessage[] }) => text(result.messages.at(-1) as BaseMessage);
  const answers: string[] = [];
  for (const words of ["u1", "u2", "u3"]) answers.push(answer(await agent.invoke({ messages: [new HumanMessage(words)] }, cfg)));
  const before = await history(agent, thread);
  const endOf = (n: number) => before.find((s) => s.next.length === 0 && humans(s.values).length === n) as Snapshot;
  const inputOf = (n: number) => before.find((s) => s.source === "input" && humans(s.values).length === n - 1) as Snapshot;
  // Fork: a new turn from the end of turn 1.
  const at = (s: Snapshot) => ({ configurable: { thread_id: thread, checkpoint_id: s.id } });
  answers.push(answer(await agent.invoke({ messages: [new HumanMessage("u2-fork")] }, at(endOf(1)))));
  answers.push(`head after fork: ${humans((await agent.graph.getState(cfg)).values.messages as BaseMessage[]).join("|")}`);
  // Edit: updateState on the end of turn 2, then a turn on top of the edit (implicit: the head).
  await agent.graph.updateState(at(endOf(2)), { messages: [new HumanMessage("u2-edit")] });
  answers.push(answer(await agent.invoke({ messages: [new HumanMessage("u3-after-edit")] }, cfg)));
  // Replay: turn 3 again from its input checkpoint.
  answers.push(answer(await agent.invoke(null, at(inputOf(3)))));
  const after = await history(agent, thread);
  const position = new Map(after.map((s, i) => [s.id, i]));
  const state = await agent.graph.getState(cfg);
  return {
    answers,
    head: humans((state.values as { messages: BaseMessage[] }).messages),
    history: after.map((s) => ({
      source: s.source,
      step: s.step,
      next: s.next,
      messages: s.values.map((m) => `${m.getType()}:${text(m)}`),
      parent: s.parent === undefined ? null : (position.get(s.parent) ?? "missing"),
    })),
  };
}

const dir = mkdtempSync(join(tmpdir(), "tw-time-travel-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let reference: Awaited<ReturnType<typeof scenario>>;
beforeAll(async () => {
  reference = await scenario(agentOn(new MemorySaver()), "reference");
});

function ours(input: Parameters<typeof resolveMemoryConfig>[0]): ThreadwiseSaver {
  return createCheckpointer(resolveMemoryConfig({ windowSize: false, ...input }, {})) as ThreadwiseSaver;
}

describe("time travel as on LangGraph's savers", () => {
  it("the reference (MemorySaver) forks, edits and replays: each branch answers from its own past", () => {
    expect(reference.answers).toEqual([
      "saw u1",
      "saw u1|u2",
      "saw u1|u2|u3",
      "saw u1|u2-fork",
      "head after fork: u1|u2-fork",
      "saw u1|u2|u2-edit|u3-after-edit",
      "saw u1|u2|u3",
    ]);
    expect(reference.head).toEqual(["u1", "u2", "u3"]);
    expect(reference.history.filter((s) => s.source === "fork" || s.source === "update")).toHaveLength(2);
  });

  it("in_memory: same answers, head and history as MemorySaver", async () => {
    const saver = ours({ backend: "in_memory" });
    expect(await scenario(agentOn(saver), "t")).toEqual(reference);
  });

  it("sqlite: same as SqliteSaver and MemorySaver", async () => {
    const saver = ours({ backend: "sqlite", sqlitePath: join(dir, "ours.sqlite") });
    const plain = SqliteSaver.fromConnString(join(dir, "plain.sqlite"));
    const plainRun = await scenario(agentOn(plain), "t");
    expect(plainRun).toEqual(reference);
    expect(await scenario(agentOn(saver), "t")).toEqual(plainRun);
    await saver.close();
  });
});

describe.skipIf(skipUnlessRealPostgres("time travel on PostgreSQL"))("time travel on PostgreSQL", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    db = await freshDatabase("twtime");
    await migrate({ dsn: db.url });
  });
  afterAll(async () => db?.drop());

  it("plain PostgresSaver loses the fork's messages (langgraphjs #1812); threadwise's saver matches MemorySaver", async () => {
    const pool = new pg.Pool({ connectionString: db.url, max: 2 });
    try {
      const plain = await scenario(agentOn(new PostgresSaver(pool)), "plain");
      // The fork from turn 1 answered, but its stored messages are turn 2's: same channel version, first write kept.
      expect(plain.answers[3]).toBe("saw u1|u2-fork");
      expect(plain.answers[4]).toBe("head after fork: u1|u2");
      expect(reference.answers[4]).toBe("head after fork: u1|u2-fork");
    } finally {
      await pool.end();
    }
    const saver = ours({ backend: "postgres", postgresDsn: db.url, allowPlaintext: true });
    expect(await scenario(agentOn(saver), "ours")).toEqual(reference);
    await saver.close();
  });

  it("through PgBouncer in transaction mode: same as MemorySaver", async () => {
    const bouncer = pgbouncerUrl("time travel through PgBouncer");
    if (!bouncer) return;
    const saver = ours({
      backend: "postgres",
      postgresDsn: sameDatabase(bouncer, db.url),
      pgPoolMode: "transaction",
      allowPlaintext: true,
    });
    expect(await scenario(agentOn(saver), "bouncer")).toEqual(reference);
    await saver.close();
  });
});
