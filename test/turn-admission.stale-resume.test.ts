/**
 * Two resumes of one HITL interrupt, sent from two processes at once (crash66): each reads the
 * thread's head, the interrupt's checkpoint; one resumes first and finishes its turn, and only then
 * does the other reach its first call. Its run resumed at a head that is no longer the head (it
 * named no `checkpoint_id`: no branch), so it must be refused `stale-parent` before any model call
 * or tool run, as an input turn that read a moved head is. Was: its claim of the turn lease found no
 * lease and another head, took nothing and let the call through: the interrupted tool ran a second
 * time (SQLite, 2 of 2 concurrent resumes in a row), and only the run's next checkpoint was refused
 * (`lease-lost`). In memory both resumes run on one saver; on SQLite and PostgreSQL on two
 * savers (two processes). English and Korean.
 */
import { randomUUID } from "node:crypto";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { Command, interrupt } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { strictModel } from "@threadwise/core/testing";
import { memoryStack, ThreadwiseConcurrentTurnError, type ThreadwiseSaver } from "@threadwise/memory";
import { createAgent, createMiddleware, tool } from "langchain";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { BACKENDS, type Backend, backendStorage } from "./support/threadwise-savers.js";

const storage = backendStorage("staleresume");
const opened: ThreadwiseSaver[] = [];
afterEach(async () => {
  for (const saver of opened.splice(0)) await saver.close().catch(() => undefined);
});

const LANGUAGES = {
  en: { ask: "Please REVIEW the booking.", yes: "approved" },
  ko: { ask: "예약 REVIEW 부탁해요.", yes: "승인" },
} as const;

function stackOn(backend: Backend) {
  const stack = memoryStack({ ...storage(backend), summarize: false, recallMaxTokens: false, logger: false, env: {} });
  opened.push(stack.checkpointer as ThreadwiseSaver);
  return stack;
}

/** What each process's model and tool did: model calls, and the review tool's runs past its interrupt (by answer). */
type Counts = { model: number; reviewed: string[] };

/** An agent whose model asks for `review` (a tool that interrupts for a human's answer), then says `done: <result>`; `outer` runs before `memoryStack`'s middleware. */
function reviewAgent(stack: ReturnType<typeof memoryStack>, counts: Counts, outer: ReturnType<typeof createMiddleware>[] = []) {
  const review = tool(
    async () => {
      const answer = interrupt({ question: "approve?" }) as string;
      counts.reviewed.push(answer);
      return `reviewed: ${answer}`;
    },
    { name: "review", description: "Asks a human to review the booking.", schema: z.object({}) },
  );
  const model = strictModel({
    answer: (messages) => {
      counts.model += 1;
      const last = messages.at(-1) as BaseMessage;
      if (ToolMessage.isInstance(last)) return `done: ${messageText(last)}`;
      return new AIMessage({ content: "", tool_calls: [{ id: "call_review", name: "review", args: {}, type: "tool_call" }] });
    },
  });
  return createAgent({ model, tools: [review], checkpointer: stack.checkpointer, middleware: [...outer, ...stack.middleware] });
}

/** A middleware that holds every tool call until `open()`, `reached` settling at the first one. */
function toolGate() {
  let reachedGate!: () => void;
  const reached = new Promise<void>((resolve) => {
    reachedGate = resolve;
  });
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const middleware = createMiddleware({
    name: "test/tool-gate",
    wrapToolCall: async (request, handler) => {
      reachedGate();
      await gate;
      return handler(request);
    },
  });
  return { middleware, reached, open };
}

describe.each(BACKENDS)("a resume of a head another resume moved on (%s)", (backend) => {
  for (const language of ["en", "ko"] as const)
    it(`is refused stale-parent before its tool runs again (${language})`, async () => {
      const { ask, yes } = LANGUAGES[language];
      const first: Counts = { model: 0, reviewed: [] };
      const second: Counts = { model: 0, reviewed: [] };
      const stackA = stackOn(backend);
      const stackB = backend === "in_memory" ? stackA : stackOn(backend);
      const gate = toolGate();
      const agentA = reviewAgent(stackA, first);
      const agentB = reviewAgent(stackB, second, [gate.middleware]);
      const config = { configurable: { thread_id: `t-${randomUUID()}` } };
      await agentA.invoke({ messages: [new HumanMessage(ask)] }, config);
      expect((await agentA.graph.getState(config)).tasks.flatMap((task) => task.interrupts ?? [])).toHaveLength(1);

      // B reads the interrupt's checkpoint and stops before its tool call; A resumes and finishes.
      const late = agentB.invoke(new Command({ resume: `${yes} B` }) as never, config).then(
        () => undefined,
        (error: unknown) => error,
      );
      await gate.reached;
      await agentA.invoke(new Command({ resume: `${yes} A` }) as never, config);
      const finished = await agentA.graph.getState(config);
      gate.open();
      const refused = ThreadwiseConcurrentTurnError.find(await late);
      expect(refused?.reason).toBe("stale-parent");
      expect(refused?.retryable).toBe(true);
      expect(second).toEqual({ model: 0, reviewed: [] });
      expect(first.reviewed).toEqual([`${yes} A`]);

      // The thread is A's turn, read the same by a fresh process; the next turn is admitted at once.
      const fresh = reviewAgent(backend === "in_memory" ? stackA : stackOn(backend), { model: 0, reviewed: [] });
      const stored = await fresh.graph.getState(config);
      expect(stored.config.configurable?.checkpoint_id).toBe(finished.config.configurable?.checkpoint_id);
      expect((stored.values.messages as BaseMessage[]).map((m) => [m.getType(), messageText(m)])).toEqual([
        ["human", ask],
        ["ai", ""],
        ["tool", `reviewed: ${yes} A`],
        ["ai", `done: reviewed: ${yes} A`],
      ]);
    });
});
