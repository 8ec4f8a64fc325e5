/**
 * A resumed run's operation id (spec R38) where the turn lease does not guard it (left by ops31):
 * - with `turnLeaseMs: 0`, two resumes of one operation at once both ran their first task (the
 *   tool ran twice); the loser was refused only at its first writes, after its call;
 * - a plain `StateGraph` (no `turnAdmission`) resumed with `Command({ resume })` or `invoke(null)`
 *   and interrupted again before its first checkpoint stored no operation id, so its retry stored
 *   its writes again (`invoke(null)`: the retry took the id stored by the run it retried for its
 *   own); and a retry's first checkpoint, sent while its first writes were being refused, was
 *   stored (PostgreSQL, about one run in three).
 * On each backend, in one process and two (SQLite and PostgreSQL share the registry); English and
 * Korean messages.
 */
import { randomUUID } from "node:crypto";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { Command, END, interrupt, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack, ThreadwiseConcurrentTurnError, type ThreadwiseSaver } from "@threadwise/memory";
import { createAgent, tool } from "langchain";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { BACKENDS, type Backend, backendStorage } from "./support/threadwise-savers.js";

const storage = backendStorage("resumeop");

const opened: ThreadwiseSaver[] = [];
afterEach(async () => {
  for (const saver of opened.splice(0)) await saver.close();
});

const LANGUAGES = {
  en: { book: "Book the 9:00 train to Busan.", approve: "yes", again: "Ask me again." },
  ko: { book: "부산행 9시 기차 예매해 줘.", approve: "네", again: "다시 물어봐 줘." },
} as const;

const settle = (run: Promise<unknown>) =>
  run.then(
    () => undefined,
    (error: unknown) => error ?? new Error("rejected"),
  );

function stackOn(backend: Backend, turnLeaseMs?: number) {
  const stack = memoryStack({
    ...storage(backend),
    ...(turnLeaseMs === undefined ? {} : { turnLeaseMs }),
    windowSize: 6,
    summarize: false,
    recallMaxTokens: false,
    logger: false,
    env: {},
  });
  if (stack.checkpointer) opened.push(stack.checkpointer);
  return stack;
}

/**
 * An agent whose model calls `book` once (asked for it by the first message), then answers;
 * `book` asks for approval (`interrupt`), counts its bookings and waits at `gate` until the test
 * opens it.
 */
function bookingAgent(backend: Backend, counter: { booked: number }, gate: { arrived: () => void; opened: Promise<void> }) {
  const stack = stackOn(backend, 0);
  const book = tool(
    async () => {
      const approval = interrupt("approve?");
      counter.booked += 1;
      gate.arrived();
      await gate.opened;
      return `booked (${String(approval)})`;
    },
    { name: "book", description: "Books a train.", schema: z.object({}) },
  );
  const model = scriptedModel((messages, call) => {
    const last = messages.at(-1) as BaseMessage;
    if (last.getType() === "human")
      return new AIMessage({ content: "", tool_calls: [{ id: `call_${call}`, name: "book", args: {}, type: "tool_call" }] });
    return `done: ${messageText(last)}`;
  });
  const agent = createAgent({ model, tools: [book], checkpointer: stack.checkpointer, middleware: stack.middleware });
  return { agent, saver: stack.checkpointer as ThreadwiseSaver };
}

describe.each(BACKENDS)("resumed runs and their operation id (%s)", (backend) => {
  for (const language of ["en", "ko"] as const)
    for (const processes of backend === "in_memory" ? [1] : [1, 2])
      it(`turnLeaseMs 0: two resumes of one operation at once run the tool once, the other is refused before it (${language}, ${processes} process(es))`, async () => {
        const text = LANGUAGES[language];
        const counter = { booked: 0 };
        let open!: () => void;
        const opened = new Promise<void>((resolve) => {
          open = resolve;
        });
        let arrivals = 0;
        let bothArrived!: () => void;
        const both = new Promise<void>((resolve) => {
          bothArrived = resolve;
        });
        const gate = {
          opened,
          arrived: () => {
            arrivals += 1;
            if (arrivals === 2) bothArrived();
          },
        };
        const a = bookingAgent(backend, counter, gate);
        const b = processes === 1 ? a : bookingAgent(backend, counter, gate);
        const thread = `t-${randomUUID()}`;
        const first = await a.agent.invoke({ messages: [new HumanMessage(text.book)] }, { configurable: { thread_id: thread } });
        expect((first as { __interrupt__?: Array<{ value: unknown }> }).__interrupt__?.map((i) => i.value)).toEqual(["approve?"]);
        const config = { configurable: { thread_id: thread, operation_id: "req-resume-1" } };
        const runs = [
          settle(a.agent.invoke(new Command({ resume: text.approve }) as never, config)),
          settle(b.agent.invoke(new Command({ resume: text.approve }) as never, config)),
        ];
        // Either both tools run (the bug), or one resume is refused before its tool: then open the gate.
        await Promise.race([both, Promise.race(runs)]);
        open();
        const errors = await Promise.all(runs);
        expect(counter.booked).toBe(1);
        const refused = errors.filter((error) => error !== undefined);
        expect(refused).toHaveLength(1);
        expect(ThreadwiseConcurrentTurnError.find(refused[0])?.reason).toBe("duplicate-operation");
        const state = await a.agent.graph.getState({ configurable: { thread_id: thread } });
        const texts = (state.values as { messages: BaseMessage[] }).messages.map((m) => `${m.getType()}:${messageText(m)}`);
        expect(texts.filter((t) => t.startsWith("tool:"))).toEqual([`tool:booked (${text.approve})`]);
        expect(texts.at(-1)).toBe(`ai:done: booked (${text.approve})`);
      });

  /** A plain graph (no middleware, no `turnAdmission`) whose one node asks twice, counting its runs. */
  function plainGraph(processes: number, language: "en" | "ko") {
    const counter = { runs: 0 };
    const make = () => {
      const stack = stackOn(backend);
      const graph = new StateGraph(MessagesAnnotation)
        .addNode("ask", () => {
          counter.runs += 1;
          const first = interrupt(LANGUAGES[language].book);
          const second = interrupt(LANGUAGES[language].again);
          return { messages: [new AIMessage(`${String(first)} / ${String(second)}`)] };
        })
        .addEdge(START, "ask")
        .addEdge("ask", END)
        .compile({ checkpointer: stack.checkpointer });
      return { graph, saver: stack.checkpointer as ThreadwiseSaver };
    };
    const a = make();
    return { a, b: processes === 1 ? a : make(), counter };
  }

  for (const language of ["en", "ko"] as const)
    for (const how of ["Command({ resume })", "invoke(null)"] as const)
      for (const processes of backend === "in_memory" ? [1] : [1, 2])
        it(`a plain StateGraph resumed with ${how} and interrupted again before its first checkpoint stores its operation: its retry is refused (${language}, ${processes} process(es))`, async () => {
          const { a, b, counter } = plainGraph(processes, language);
          const thread = `t-${randomUUID()}`;
          await a.graph.invoke({ messages: [new HumanMessage(LANGUAGES[language].book)] }, { configurable: { thread_id: thread } });
          const config = { configurable: { thread_id: thread, operation_id: "req-plain-1" } };
          const input = () => (how === "invoke(null)" ? null : new Command({ resume: LANGUAGES[language].approve }));
          await a.graph.invoke(input() as never, config);
          const runs = counter.runs;
          const pending = (await a.graph.getState({ configurable: { thread_id: thread } })).tasks.flatMap((task) =>
            task.interrupts.map((i) => i.value),
          );
          const error = await settle(b.graph.invoke(input() as never, config));
          expect({
            reason: ThreadwiseConcurrentTurnError.find(error)?.reason,
            operationId: ThreadwiseConcurrentTurnError.find(error)?.operationId,
          }).toEqual({
            reason: "duplicate-operation",
            operationId: "req-plain-1",
          });
          // No `turnAdmission` on a plain graph: LangGraph runs the node before any of its writes
          // reach the saver, so the retry's node runs (README); it stores nothing.
          expect(counter.runs).toBe(runs + 1);
          const after = (await a.graph.getState({ configurable: { thread_id: thread } })).tasks.flatMap((task) =>
            task.interrupts.map((i) => i.value),
          );
          expect(after).toEqual(pending);
        });
});
