/**
 * A full `memoryStack` agent on each backend, with tools that do what real tools do (parallel
 * calls, a throw, an interrupt, a `Command` with messages, a huge result, image blocks), a strict
 * model (every request checked against all four providers' rules, refusals recorded) and an
 * oracle: the same turn run by fresh middleware instances (another `memoryStack` on the same
 * storage, "a fresh process") from the same checkpoint must send the same request.
 * Used by `test/break.*.test.ts`.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { Command, interrupt } from "@langchain/langgraph";
import { uuid6 } from "@langchain/langgraph-checkpoint";
import { messageText, toolCallsOf } from "@threadwise/core";
import { type StrictFakeModel, scriptedModel, strictModel } from "@threadwise/core/testing";
import { type MemoryStackOptions, migrate } from "@threadwise/memory";
import { tool } from "langchain";
import { afterAll, beforeAll } from "vitest";
import { z } from "zod/v4";
import { freshDatabase, testPoolMax } from "./postgres.js";

export type Backend = "in_memory" | "sqlite" | "postgres";
export const BACKENDS: readonly Backend[] = ["in_memory", "sqlite", "postgres"];

export const lookup = tool(async ({ q }: { q: string }) => `result for ${q}`, {
  name: "lookup",
  description: "Looks things up.",
  schema: z.object({ q: z.string() }),
});
export const failing = tool(
  async () => {
    throw new Error("disk quota exceeded");
  },
  { name: "failing", description: "Always fails.", schema: z.object({ q: z.string() }) },
);
export const asking = tool(async ({ q }: { q: string }) => `approved ${q}: ${String(interrupt({ question: `approve ${q}?` }))}`, {
  name: "asking",
  description: "Asks a human.",
  schema: z.object({ q: z.string() }),
});
/** Answers with a `Command` whose update holds its ToolMessage and a note from the tool. */
export const commanding = tool(
  async ({ q }: { q: string }, config) =>
    new Command({
      update: {
        messages: [new ToolMessage({ content: `command result for ${q}`, tool_call_id: config.toolCall?.id ?? "", name: "commanding" })],
      },
    }),
  { name: "commanding", description: "Answers with a Command.", schema: z.object({ q: z.string() }) },
);
/** A result far bigger than any window or cap. */
export const huge = tool(async ({ q }: { q: string }) => `${q}: ${"서울 Seoul weather data row. ".repeat(4000)}`, {
  name: "huge",
  description: "Returns a huge result.",
  schema: z.object({ q: z.string() }),
});
export const TOOLS = [lookup, failing, asking, commanding, huge];

/** A tiny valid PNG (1x1), base64. */
export const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/**
 * The agent's model: `TOOLS a,b` calls those tools in parallel (args `{ q: "<n>" }`); after tool
 * results it answers with their text; otherwise `ok: <text>`. Every request is checked against all
 * four providers and refusals are recorded (not thrown), so a run shows every refused request.
 */
export function agentModel(): StrictFakeModel {
  let n = 0;
  return strictModel({
    onViolation: "record",
    answer: (messages) => {
      const last = messages.at(-1) as BaseMessage;
      if (last.getType() === "tool") return `done: ${messageText(last).slice(0, 40)}`;
      const text = messageText(last);
      const m = /TOOLS ([\w,]+)/.exec(text);
      if (m && last.getType() === "human") {
        n += 1;
        const names = (m[1] as string).split(",");
        return new AIMessage({
          content: "",
          tool_calls: names.map((name, i) => ({ id: `call_${n}_${i}`, name, args: { q: `${n}.${i}` }, type: "tool_call" as const })),
        });
      }
      return `ok: ${text.slice(0, 40)}`;
    },
  });
}

/** One backend's storage, shared by the stacks of every "process". */
export function backendStorage(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), `tw-${prefix}-`));
  let db: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  beforeAll(async () => {
    db = await freshDatabase(prefix);
    await migrate({ dsn: db.url, schema: db.schema });
  }, 120_000);
  afterAll(async () => {
    await db?.drop();
  });
  const sqlitePath = join(dir, `${uuid6(-1)}.db`);
  return (backend: Backend): MemoryStackOptions => {
    if (backend === "in_memory") return { backend };
    if (backend === "sqlite") return { backend, sqlitePath };
    const d = db as NonNullable<typeof db>;
    return { backend, postgresDsn: d.url, postgresSchema: d.schema, pgPoolMax: testPoolMax(), allowPlaintext: true };
  };
}

/** Stack options used by the break suites: small window, a cap, summary, facts, recall. */
export function stackOptions(storage: MemoryStackOptions, extra: MemoryStackOptions = {}): MemoryStackOptions {
  return {
    windowSize: 6,
    maxHistoryTokens: 1500,
    summarizeThreshold: 10,
    factsMode: "heuristic",
    recallMaxTokens: 200,
    models: { summarize: scriptedModel(() => "SUMMARY-7f3a of the earlier talk", { strict: false }) },
    logger: false,
    env: {},
    ...storage,
    ...extra,
  };
}

/** What a provider sees of a request: type, text, calls, call id (message ids left out where random). */
export function requestShape(messages: readonly BaseMessage[]): string[] {
  return messages.map((m) => {
    const calls = toolCallsOf(m)
      .map((c) => `${c.id}:${c.name}:${JSON.stringify(c.args)}`)
      .join(",");
    const callId = m.getType() === "tool" ? `<${(m as ToolMessage).tool_call_id}>` : "";
    const content = typeof m.content === "string" ? m.content : JSON.stringify(m.content);
    return `${m.getType()}${callId}${calls ? `[${calls}]` : ""}: ${content}`;
  });
}

/** The last request a fake model received. */
export function lastRequest(model: StrictFakeModel): BaseMessage[] {
  return (model.calls.at(-1) as { messages: BaseMessage[] } | undefined)?.messages ?? [];
}

export const human = (text: string, id?: string) => new HumanMessage({ content: text, ...(id ? { id } : {}) });
