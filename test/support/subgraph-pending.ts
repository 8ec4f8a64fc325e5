/**
 * The pending-subgraph update scenario of `test/subgraph-checkpoint-id.test.ts` (in_memory, SQLite)
 * and `test/subgraph-checkpoint-id.int.test.ts` (PostgreSQL, PgBouncer): a parent graph over a
 * `createAgent` node, paused before it (`interruptBefore`), an `updateState` aimed at the task's
 * namespace, then the run and a next turn; with the strict fake model both files share.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { END, MemorySaver, MessagesAnnotation, Send, START, StateGraph } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { strictModel } from "@threadwise/core/testing";
import { type MemoryStackOptions, memoryStack } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll } from "vitest";
import { lookup, requests } from "./report-agent.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
let threads = 0;

/** Where the stack stores: `in_memory`, a new SQLite file per call, or the given backend options (a PostgreSQL database). */
export type Storage = "in_memory" | "sqlite" | (() => Partial<MemoryStackOptions>);

function backendOptions(storage: Storage): Partial<MemoryStackOptions> {
  if (typeof storage === "function") return storage();
  if (storage === "in_memory") return { backend: "in_memory" };
  const dir = mkdtempSync(join(tmpdir(), "tw-subgraph-pending-"));
  dirs.push(dir);
  return { backend: "sqlite", sqlitePath: join(dir, "m.sqlite") };
}

/** `PARALLEL 1` calls lookup; after its result "done"; else "ok: <text>". Strict on the stack; a plain run's requests are only recorded (LangGraph's own fork sends two user turns in a row). */
export function model(strict: boolean) {
  return strictModel({
    noPrefill: true,
    ...(strict ? {} : { onViolation: "record" as const }),
    answer: (messages) => {
      const last = messages.at(-1) as BaseMessage;
      if (last.getType() === "tool") return `done: ${messageText(last)}`;
      // The user's newest words: a view may send two user turns in a row as one message.
      const text =
        messageText(last)
          .split("\n")
          .filter((line) => line.trim() !== "")
          .at(-1) ?? "";
      if (text.startsWith("PARALLEL"))
        return new AIMessage({
          content: "",
          tool_calls: [{ id: `call_${messages.length}`, name: "lookup", args: { n: 1 }, type: "tool_call" }],
        });
      return `ok: ${text}`;
    },
  });
}

export const TEXT = {
  en: ["hello", "PARALLEL 1 look it up", "and again"],
  ko: ["안녕하세요", "PARALLEL 1 찾아봐 줘", "한 번 더요"],
} as const;

/**
 * `updateState` on the namespace of a task whose subgraph has not checkpointed yet: the parent
 * paused before its `agent` node (`interruptBefore`), the task listed by `getState` with its id,
 * its namespace `agent:<task id>` holding nothing yet. LangGraph stores the update there and the
 * task, when it runs, starts from it (the model answers the update). The stack was refusing it as
 * it refuses any namespace that holds no checkpoint (`ThreadwiseConfigError`,
 * `configurable.checkpoint_ns`): it now matches the namespace against the task LangGraph derives
 * from the parent's newest checkpoint, stores the update, and the thread reads as LangGraph's; the
 * next turn's requests are valid. A namespace of the same node with a task id the parent does not
 * have next (`other`) is still refused, nothing stored. The same edit made to the parent's state
 * (`root`) gives plain LangGraph's thread too.
 */
export async function notStartedUpdate(
  plain: boolean,
  archive: boolean,
  lang: "en" | "ko",
  where: "task" | "root" | "other" | "stale",
  route: "edge" | "send" = "edge",
  earlier = 0,
  storage: Storage = "sqlite",
) {
  const m = model(!plain);
  const stack = memoryStack({
    ...backendOptions(storage),
    windowSize: 6,
    archive,
    recallMaxTokens: false,
    logger: false,
    env: {},
  });
  const agent = createAgent({ model: m, tools: [lookup], middleware: (plain ? [] : stack.middleware) as never });
  const builder = new StateGraph(MessagesAnnotation).addNode("agent", agent.graph as never, { ends: [END] });
  // `send`: the parent reaches the agent by a `Send` of its messages (a `__pregel_push` task).
  const routed =
    route === "edge"
      ? builder.addEdge(START, "agent")
      : builder.addConditionalEdges(START, (state) => [new Send("agent", { messages: state.messages })], ["agent"]);
  const parent = routed
    .addEdge("agent", END)
    .compile({ checkpointer: (plain ? new MemorySaver() : stack.checkpointer) as never, interruptBefore: ["agent"] });
  const config = { configurable: { thread_id: `subgraph-pending-${lang}-${route}-${++threads}` } };
  /** The run stopped at interruptBefore holds the thread's lease: end it there (README, "One turn at a time"). */
  const endTurn = async (at: object) => {
    if (!plain) await (stack.checkpointer as unknown as { endTurn(config: object): Promise<void> }).endTurn(at);
  };
  // `earlier` turns first (each paused before the agent, then resumed): a thread over the window.
  for (let turn = 1; turn <= earlier; turn += 1) {
    await parent.invoke({ messages: [new HumanMessage(`${TEXT[lang][2]} ${turn}`)] }, config);
    await endTurn((await parent.getState(config as never)).config);
    await parent.invoke(null as never, config);
  }
  await parent.invoke({ messages: [new HumanMessage(TEXT[lang][0])] }, config);
  const state = await parent.getState(config as never, { subgraphs: true } as never);
  await endTurn(state.config);
  const task = state.tasks[0] as { id: string; name: string; state?: unknown };
  const ns = where === "other" ? `${task.name}:${task.id.replace(/^.{8}/, "00000000")}` : `${task.name}:${task.id}`;
  // `stale`: the parent's state is updated first (a new head, whose next task has a new id), then
  // the task listed before it: no task will read that namespace.
  if (where === "stale") await parent.updateState(config as never, { messages: [new HumanMessage(TEXT[lang][1])] });
  const target = where === "root" ? config.configurable : { thread_id: config.configurable.thread_id, checkpoint_ns: ns };
  const outcome = await parent.updateState({ configurable: target } as never, { messages: [new HumanMessage(TEXT[lang][2])] }).then(
    () => undefined,
    (e: unknown) => e,
  );
  await parent.invoke(null as never, config);
  const texts = ((await parent.getState(config as never)).values.messages as BaseMessage[]).map((x) => messageText(x));
  // The next turn: the stack serves it from the stored thread.
  await parent.invoke({ messages: [new HumanMessage(TEXT[lang][1])] }, config);
  await endTurn((await parent.getState(config as never)).config);
  await parent.invoke(null as never, config);
  const next = ((await parent.getState(config as never)).values.messages as BaseMessage[]).map((x) => messageText(x));
  await stack.checkpointer?.close();
  return { task, ns, outcome, texts, next, requests: requests(m) };
}
