/**
 * A turn under `durability: "exit"` while another turn of the thread runs (spec R38; left by ops31).
 * An `exit` run stores nothing until it ends, then its one checkpoint, whose parent is the head it
 * started from: on a graph without `turnAdmission` (a plain `StateGraph`) that checkpoint was
 * stored as a step of the running turn (its parent was the head), so the exit turn took the thread
 * and the running turn failed `lease-lost`. And on a graph with a `DeltaChannel` (LangGraph's
 * `MessagesDeltaValue`), LangGraph sends the run's delta writes on the checkpoint it started from
 * just before that checkpoint: a refused `exit` run left them there, in the running turn's state.
 * On each backend, in one process and two (SQLite and PostgreSQL share the registry), English and
 * Korean.
 */
import { randomUUID } from "node:crypto";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { END, MessagesDeltaValue, MessagesValue, START, StateGraph, StateSchema } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { memoryStack, ThreadwiseConcurrentTurnError, type ThreadwiseSaver } from "@threadwise/memory";
import { afterEach, describe, expect, it } from "vitest";
import { BACKENDS, type Backend, backendStorage } from "./support/threadwise-savers.js";

const storage = backendStorage("exitdur");

const opened: ThreadwiseSaver[] = [];
afterEach(async () => {
  for (const saver of opened.splice(0)) await saver.close();
});

const LANGUAGES = {
  en: { hello: "Hello.", slow: "Plan the whole trip to Busan.", exit: "Book the 9:00 train.", next: "Thanks." },
  ko: { hello: "안녕하세요.", slow: "부산 여행 일정을 다 짜 줘.", exit: "9시 기차 예매해 줘.", next: "고마워요." },
} as const;

/** A graph whose one node answers each message, waiting at `gate` when the message is `slow`. */
function graphOn(backend: Backend, channel: "delta" | "plain", slow: string, gate: { arrived: () => void; opened: Promise<void> }) {
  const stack = memoryStack({ ...storage(backend), summarize: false, recallMaxTokens: false, logger: false, env: {} });
  if (stack.checkpointer) opened.push(stack.checkpointer);
  const State = new StateSchema({ messages: channel === "delta" ? MessagesDeltaValue : MessagesValue });
  const graph = new StateGraph(State)
    .addNode("answer", async (state: { messages: BaseMessage[] }) => {
      const last = messageText(state.messages.at(-1) as BaseMessage);
      if (last === slow) {
        gate.arrived();
        await gate.opened;
      }
      return { messages: [new AIMessage(`re: ${last}`)] };
    })
    .addEdge(START, "answer")
    .addEdge("answer", END)
    .compile({ checkpointer: stack.checkpointer });
  return { graph, saver: stack.checkpointer as ThreadwiseSaver };
}

/**
 * The graph and config of a run under durability `exit`, set on the call (`invoke(input, { durability })`)
 * or on the compiled graph (`graph.withConfig({ durability })`, which the saver did not see).
 */
function exitRun<G extends { withConfig: (config: { durability: "exit" }) => G }>(
  graph: G,
  where: "call" | "graph",
  config: { configurable: { thread_id: string } },
): { graph: G; config: { configurable: { thread_id: string }; durability?: "exit" } } {
  return where === "call"
    ? { graph, config: { ...config, durability: "exit" } }
    : { graph: graph.withConfig({ durability: "exit" }), config };
}

describe.each(BACKENDS)("a turn under durability exit during another turn (%s)", (backend) => {
  for (const channel of ["delta", "plain"] as const)
    for (const language of ["en", "ko"] as const)
      for (const processes of backend === "in_memory" ? [1] : [1, 2])
        for (const where of ["call", "graph"] as const)
          it(`is refused turn-in-progress and stores nothing; the running turn commits (${channel === "delta" ? "MessagesDeltaValue" : "MessagesValue"}, ${language}, ${processes} process(es), exit set on the ${where})`, async () => {
            const text = LANGUAGES[language];
            let open!: () => void;
            let arrived!: () => void;
            const reached = new Promise<void>((resolve) => {
              arrived = resolve;
            });
            const gate = {
              arrived,
              opened: new Promise<void>((resolve) => {
                open = resolve;
              }),
            };
            const a = graphOn(backend, channel, text.slow, gate);
            const b = processes === 1 ? a : graphOn(backend, channel, text.slow, gate);
            const config = { configurable: { thread_id: `t-${randomUUID()}` } };
            await a.graph.invoke({ messages: [new HumanMessage(text.hello)] }, config);
            const running = a.graph.invoke({ messages: [new HumanMessage(text.slow)] }, config);
            await reached;
            // The running turn's checkpoint the node runs from is stored (LangGraph runs the node while its put is in flight).
            while ((await a.saver.getTuple(config))?.metadata?.step !== 3) await new Promise((resolve) => setImmediate(resolve));
            const runningAt = (await b.graph.getState(config)).config.configurable?.checkpoint_id as string;
            const exit = exitRun(b.graph, where, config);
            const error = await exit.graph.invoke({ messages: [new HumanMessage(text.exit)] }, exit.config).then(
              () => undefined,
              (e: unknown) => e,
            );
            expect(ThreadwiseConcurrentTurnError.find(error)?.reason).toBe("turn-in-progress");
            open();
            await running;
            const texts = async (checkpointId?: string) =>
              (
                (
                  await a.graph.getState({
                    configurable: { ...config.configurable, ...(checkpointId ? { checkpoint_id: checkpointId } : {}) },
                  })
                ).values as { messages: BaseMessage[] }
              ).messages.map((m) => messageText(m));
            expect(await texts()).toEqual([text.hello, `re: ${text.hello}`, text.slow, `re: ${text.slow}`]);
            expect(await texts(runningAt)).not.toContain(text.exit);
            const stored: string[] = [];
            for await (const tuple of a.saver.list({ configurable: { ...config.configurable, checkpoint_ns: "" } }))
              for (const [, , value] of tuple.pendingWrites ?? []) stored.push(JSON.stringify(value) ?? "");
            expect(stored.filter((value) => value.includes(text.exit))).toEqual([]);
            await exit.graph.invoke({ messages: [new HumanMessage(text.next)] }, exit.config);
            expect((await texts()).slice(-2)).toEqual([text.next, `re: ${text.next}`]);
          });
});
