/**
 * A replayed conversation through `memoryStack` with or without the message archive (issue 27),
 * recording every model call, summarizer call and the thread read back. Shared by the archive
 * suites (in_memory, SQLite, PostgreSQL).
 */
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { messageText, readSummarySlot } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { type MemoryConfigInput, memoryStack, type ThreadwiseSaver } from "@threadwise/memory";
import { COVERED_DIGEST_CHARACTERS } from "@threadwise/summarize";
import { createAgent } from "langchain";
import { z } from "zod/v4";

export const TURNS = 48;
export const WINDOW = 6;
export const THREAD = "replay";

/** What a request or a stored message is, without ids LangGraph generates (tool messages' ids differ per run). */
export function shape(message: BaseMessage) {
  const tools = AIMessage.isInstance(message) ? (message.tool_calls ?? []).map((c) => [c.id, c.name, JSON.stringify(c.args)]) : [];
  return [
    message.getType(),
    ToolMessage.isInstance(message) ? `tool:${message.tool_call_id}` : message.id,
    messageText(message),
    JSON.stringify(tools),
  ].join("|");
}

export const lookup = tool(async ({ key }: { key: string }) => `value of ${key}`, {
  name: "lookup",
  description: "Looks a key up.",
  schema: z.object({ key: z.string() }),
});

/** Turn k's user message; every 7th turn asks for a tool call, some mention an early detail. */
const userText = (k: number) => (k === 3 ? "my locker code is 4417" : k % 11 === 0 ? `what was my locker code? (turn ${k})` : `note ${k}`);

export interface Run {
  requests: string[][];
  systems: string[];
  summaries: string[][];
  thread: string[];
  hot: number;
  archived: number;
  /** Messages whose digest the thread's summary record keeps (`coveredDigests`). */
  digests: number;
  checkpointer: ThreadwiseSaver;
}

const runs = new Map<string, Promise<Run>>();
/** {@link replay}, once per set of options that leaves the thread as it is (no closing, no edits). */
export function replayOnce(options: Parameters<typeof replay>[0]): Promise<Run> {
  const key = JSON.stringify(options);
  if (!runs.has(key)) runs.set(key, replay(options));
  return runs.get(key) as Promise<Run>;
}

/**
 * A rewrite in the replay: turn `turn`'s input is `REMOVE_ALL_MESSAGES`, then the whole thread read
 * back (`readThread`: archived messages too) from message `keepFrom` on, with the first user message
 * at or after `edit` (an index into the whole thread, when given) given other text under its id, then the turn's
 * user message. A persistTrim-like rewrite that brings archived messages back into the checkpoint.
 */
export interface ReplayRewrite {
  turn: number;
  keepFrom: number;
  edit?: number;
}

/** Stack options of a replay: the archive switch and the backend's config; a rewrite on the way. */
export type ReplayOptions = { archive: boolean; rewrite?: ReplayRewrite } & Pick<
  MemoryConfigInput,
  "backend" | "sqlitePath" | "keyringPath" | "postgresDsn" | "postgresSchema" | "pgPoolMax" | "allowPlaintext"
>;

export async function replay({ rewrite, ...options }: ReplayOptions): Promise<Run> {
  const summarizer = scriptedModel((messages) => `summary of ${messages.map((m) => messageText(m)).join(" / ").length} characters`, {
    strict: false,
  });
  const model = scriptedModel((messages, call) => {
    const last = messages.at(-1) as BaseMessage;
    if (HumanMessage.isInstance(last) && String(last.id).endsWith("7"))
      return new AIMessage({
        id: `call-${call}`,
        content: "",
        tool_calls: [{ id: `tc-${call}`, name: "lookup", args: { key: String(last.id) } }],
      });
    return new AIMessage({ id: `a-${call}`, content: `answer ${call}` });
  });
  const stack = memoryStack({
    ...options,
    windowSize: WINDOW,
    summarizeThreshold: 2 * WINDOW,
    models: { summarize: summarizer },
    logger: false,
    env: {},
  });
  const agent = createAgent({ model, tools: [lookup], ...stack });
  const config = { configurable: { thread_id: THREAD } };
  const checkpointer = stack.checkpointer as ThreadwiseSaver;
  for (let k = 1; k <= TURNS; k += 1) {
    const user = new HumanMessage({ id: `u${k}`, content: userText(k) });
    if (k !== rewrite?.turn) {
      await agent.invoke({ messages: [user] }, config);
      continue;
    }
    const whole = await checkpointer.readThread(config);
    const edited = rewrite.edit === undefined ? -1 : whole.findIndex((m, i) => i >= (rewrite.edit ?? 0) && HumanMessage.isInstance(m));
    const kept = whole
      .map((m, i) => (i === edited ? new HumanMessage({ id: m.id as string, content: `${messageText(m)} (edited)` }) : m))
      .slice(rewrite.keepFrom);
    await agent.invoke({ messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...kept, user] }, config);
  }
  const state = await agent.graph.getState(config);
  return {
    requests: model.calls.map((call) => call.messages.filter((m) => m.getType() !== "system").map(shape)),
    systems: model.calls.map((call) => messageText(call.messages[0] as BaseMessage)),
    summaries: summarizer.calls.map((call) => call.messages.map(shape)),
    thread: (await checkpointer.readThread(config)).map(shape),
    hot: (state.values.messages as BaseMessage[]).length,
    archived: (await checkpointer.archivedMessages(THREAD)).length,
    digests: (readSummarySlot(state.values).summary?.coveredDigests?.length ?? 0) / COVERED_DIGEST_CHARACTERS,
    checkpointer,
  };
}
