/**
 * LangGraph's static breakpoints (`interruptBefore` / `interruptAfter` given with a run, as LangGraph
 * Studio's breakpoints and the "client-side tool" pattern set them) on a thread of the stack.
 *
 * - https://github.com/langchain-ai/langgraph/issues/4217 "create_react_agent fails to resume after
 *   external update_state with ToolMessage" (the run stops before the tools, the client runs the
 *   tool and writes its result with `update_state`, then resumes with `invoke(null)`);
 * - https://github.com/bytedance/deer-flow/issues/572 (`interrupt_before=["tools"]` on a ReAct
 *   agent to ask the user before each tool runs).
 *
 * A static breakpoint ends the run with a `GraphInterrupt` after storing a checkpoint whose tasks
 * are left to run, and stores no write (no `__interrupt__`, no error): nothing tells the saver the
 * run is over, so the turn lease taken at that checkpoint stays held until it lapses
 * (`turnLeaseMs`, 10 s), and the resume (`invoke(null)`), the client's `updateState` of the tool
 * results and a new message are all refused `ThreadwiseConcurrentTurnError` ("another turn is
 * running") until then (breaker29). The caller ends it: `turnEndCallbacks(checkpointer)` passed
 * with the run (LangGraph reports each breakpoint to it), or `checkpointer.endTurn(config)` at the
 * checkpoint the run stopped at; with `turnLeaseMs: 0` (no lease) the same flow runs too. Every
 * request of the flow is one every provider accepts.
 *
 * Another way LangGraph ends a run with tasks left and no write: a drain
 * (`RunControl.requestDrain()`, LangGraph's graceful shutdown: "the checkpoint is saved and the run
 * can be resumed later"). A drain requested during a model or tool call releases the lease with
 * the run's last checkpoint; one requested before the run's first call is ended with `endTurn`.
 * (A step over the graph's `stepTimeout` is a third: the runner rejects `Abort` on its own timeout
 * signal, not the caller's; not tested here, it needs a timed step.)
 */
import { randomUUID } from "node:crypto";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { Command, interrupt, RunControl } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { PROVIDERS, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { ThreadwiseConcurrentTurnError, ThreadwiseConfigError, type ThreadwiseSaver, turnEndCallbacks } from "@threadwise/memory";
import { tool } from "langchain";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { agentModel, lastOf, requests, stackAgent, storedMessages } from "./support/report-agent.js";
import { BACKENDS, type Backend, backendStorage } from "./support/threadwise-savers.js";

/** Each backend's storage, private to this file (one migrated PostgreSQL database; a SQLite file per agent). */
const storage = backendStorage("breakpoints");
/** A thread id of its own (the PostgreSQL database is one for the file). */
const threadOf = (name: string) => `${name}-${randomUUID()}`;

/** `stackAgent`, its checkpointer closed after the test (a PostgreSQL pool holds connections). */
const opened: ThreadwiseSaver[] = [];
function openAgent(options: Parameters<typeof stackAgent>[0]) {
  const made = stackAgent(options);
  if (made.stack.checkpointer) opened.push(made.stack.checkpointer);
  return made;
}
afterEach(async () => {
  for (const saver of opened.splice(0)) await saver.close();
});

const BREAKPOINTS = [{ interruptBefore: ["tools"] }, { interruptAfter: ["model_request"] }] as const;

/** How the flow ends the turn the breakpoint left open: the stack's callbacks, `endTurn`, or no lease at all. */
type TurnEnd = "turnEndCallbacks" | "endTurn" | "turnLeaseMs: 0";

/**
 * A run stopped by `breakpoint` before its two `lookup` calls ran, then the client's results written
 * as the tools node (`updateState(..., "tools")`), the run resumed (`invoke(null)`) and a next turn.
 */
async function clientToolsFlow(backend: Backend, breakpoint: object, end: TurnEnd) {
  const model = agentModel();
  const { agent, stack } = openAgent({
    windowSize: 4,
    model,
    stack: { ...storage(backend, "fresh"), ...(end === "turnLeaseMs: 0" ? { turnLeaseMs: 0 } : {}) },
  });
  const checkpointer = stack.checkpointer as ThreadwiseSaver;
  const config = { configurable: { thread_id: threadOf("client-tools") } };
  await agent.invoke({ messages: [new HumanMessage("hello")] }, config);
  const callbacks = end === "turnEndCallbacks" ? { callbacks: turnEndCallbacks(checkpointer) } : {};
  await agent.invoke({ messages: [new HumanMessage("PARALLEL 2 run them on the client")] }, {
    ...config,
    ...breakpoint,
    ...callbacks,
  } as never);
  const waiting = (await agent.graph.getState(config)) as { next: string[]; values: { messages: BaseMessage[] }; config: object };
  expect(waiting.next).toEqual(["tools", "tools"]);
  if (end === "endTurn") await checkpointer.endTurn(waiting.config);
  const calls = (lastOf(waiting.values.messages) as AIMessage).tool_calls ?? [];
  const results = calls.map(
    (call) => new ToolMessage({ tool_call_id: call.id as string, name: call.name, content: `client ${call.args.n}` }),
  );
  await agent.graph.updateState(config, { messages: results } as never, "tools");
  await agent.invoke(null as never, config);
  await agent.invoke({ messages: [new HumanMessage("thanks")] }, config);
  for (const request of requests(model)) expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
  // The model answered the client's results, once each, and the next turn went on from there.
  const afterResults = requests(model).find((r) => lastOf(r).getType() === "tool") as BaseMessage[];
  expect(messageText(lastOf(afterResults))).toBe("client 1");
  const stored = await storedMessages(agent.graph as never, config.configurable.thread_id);
  expect(stored.filter((m) => m.getType() === "tool").map(messageText)).toEqual(["client 0", "client 1"]);
  expect(messageText(lastOf(stored))).toBe("ok: thanks");
}

describe.each(BACKENDS)("public reports: static breakpoints on the stack (%s)", (backend) => {
  for (const breakpoint of BREAKPOINTS) {
    for (const end of ["turnEndCallbacks", "endTurn", "turnLeaseMs: 0"] as const)
      it(`${JSON.stringify(breakpoint)}, turn ended by ${end}: the client's tool results written with updateState, then invoke(null), then a new turn`, async () => {
        await clientToolsFlow(backend, breakpoint, end);
      });

    // Without either, nothing tells the saver the run ended: its lease holds until `turnLeaseMs`,
    // and the refusal names the two ways to end it.
    it(`${JSON.stringify(breakpoint)} alone: updateState is refused turn-in-progress until the lease lapses`, async () => {
      const { agent } = openAgent({ windowSize: 4, stack: storage(backend, "fresh") });
      const config = { configurable: { thread_id: threadOf("held") } };
      await agent.invoke({ messages: [new HumanMessage("PARALLEL 1 later")] }, { ...config, ...breakpoint } as never);
      const refused = await agent.graph.updateState(config, { messages: [] } as never, "tools").catch((error: unknown) => error);
      expect(ThreadwiseConcurrentTurnError.isInstance(refused)).toBe(true);
      expect((refused as ThreadwiseConcurrentTurnError).reason).toBe("turn-in-progress");
      expect((refused as Error).message).toMatch(/turnEndCallbacks.*endTurn/);
    });
  }

  it("the turn-end callbacks leave a dynamic interrupt's turn to its interrupt write, and a resume goes on at once", async () => {
    const ask = tool(async () => `answer ${String(interrupt("which?"))}`, { name: "ask", description: "Asks.", schema: z.object({}) });
    const model = strictModel({
      answer: (messages) =>
        messageText(lastOf(messages)).startsWith("ASK")
          ? new AIMessage({ content: "", tool_calls: [{ id: "call_ask", name: "ask", args: {}, type: "tool_call" }] })
          : `ok: ${messageText(lastOf(messages))}`,
    });
    const { agent, stack } = openAgent({ model, tools: [ask as never], stack: storage(backend, "fresh") });
    const config = { configurable: { thread_id: threadOf("dynamic") }, callbacks: turnEndCallbacks(stack.checkpointer as ThreadwiseSaver) };
    const paused = (await agent.invoke({ messages: [new HumanMessage("ASK me")] }, config as never)) as { __interrupt__?: unknown[] };
    expect(paused.__interrupt__).toHaveLength(1);
    await agent.invoke(new Command({ resume: "this one" }) as never, config as never);
    expect(messageText(lastOf(await storedMessages(agent.graph as never, config.configurable.thread_id)))).toBe("ok: answer this one");
  });
});
/** The agent's model: `WORK` calls the tool `work` once; otherwise "ok: <last text>". */
function workModel() {
  return strictModel({
    answer: (messages) => {
      const text = messageText(lastOf(messages));
      if (text.startsWith("WORK"))
        return new AIMessage({ content: "", tool_calls: [{ id: "call_work", name: "work", args: {}, type: "tool_call" }] });
      return `ok: ${text}`;
    },
  });
}

describe.each(BACKENDS)("public reports: a drained run (RunControl.requestDrain) on the stack (%s)", (backend) => {
  /** An agent whose tool `work` requests a drain of `control` while it runs. */
  function drainingAgent(control: RunControl) {
    const work = tool(
      async () => {
        control.requestDrain("sigterm");
        return "worked";
      },
      { name: "work", description: "Works.", schema: z.object({}) },
    );
    return openAgent({ windowSize: 4, model: workModel(), tools: [work as never], stack: storage(backend, "fresh") }).agent;
  }

  it("a run drained while its tool runs resumes at once with invoke(null)", async () => {
    const control = new RunControl();
    const agent = drainingAgent(control);
    const config = { configurable: { thread_id: threadOf("drained") } };
    await expect(agent.invoke({ messages: [new HumanMessage("WORK now")] }, { ...config, control } as never)).rejects.toThrow(/drained/i);
    expect((await agent.graph.getState(config)).next).toEqual(["model_request"]);
    await agent.invoke(null as never, config);
    expect(messageText(lastOf(await storedMessages(agent.graph as never, config.configurable.thread_id)))).toBe("ok: worked");
  });

  it("a new turn right after a drained run is admitted and answers after the tool's result", async () => {
    const control = new RunControl();
    const agent = drainingAgent(control);
    const config = { configurable: { thread_id: threadOf("drained-next") } };
    await expect(agent.invoke({ messages: [new HumanMessage("WORK now")] }, { ...config, control } as never)).rejects.toThrow(/drained/i);
    await agent.invoke({ messages: [new HumanMessage("next")] }, config);
    const stored = await storedMessages(agent.graph as never, config.configurable.thread_id);
    expect(stored.map((m) => [m.getType(), messageText(m)])).toEqual([
      ["human", "WORK now"],
      ["ai", ""],
      ["tool", "worked"],
      ["human", "next"],
      ["ai", "ok: next"],
    ]);
  });
});

describe.each(BACKENDS)("ThreadwiseSaver.endTurn (%s)", (backend) => {
  function agentOn() {
    return openAgent({ windowSize: 4, stack: storage(backend, "fresh") });
  }
  let config = { configurable: { thread_id: "" } };
  beforeEach(() => {
    config = { configurable: { thread_id: threadOf("ended") } };
  });

  it("names configurable.checkpoint_id when it is missing, and ends nothing", async () => {
    const { agent, stack } = agentOn();
    await agent.invoke({ messages: [new HumanMessage("PARALLEL 1 later")] }, { ...config, interruptBefore: ["tools"] } as never);
    const refused = await (stack.checkpointer as ThreadwiseSaver).endTurn(config).catch((error: unknown) => error);
    expect(ThreadwiseConfigError.isInstance(refused) && refused.option).toBe("configurable.checkpoint_id");
    await expect(agent.graph.updateState(config, { messages: [] } as never, "tools")).rejects.toThrow(/another turn is running/);
  });

  it("ends the lease only at the checkpoint holding it: an older one leaves it held", async () => {
    const { agent, stack } = agentOn();
    const checkpointer = stack.checkpointer as ThreadwiseSaver;
    await agent.invoke({ messages: [new HumanMessage("hello")] }, config);
    const older = (await agent.graph.getState(config)).config;
    await agent.invoke({ messages: [new HumanMessage("PARALLEL 1 later")] }, { ...config, interruptBefore: ["tools"] } as never);
    await checkpointer.endTurn(older);
    await expect(agent.graph.updateState(config, { messages: [] } as never, "tools")).rejects.toThrow(/another turn is running/);
    await checkpointer.endTurn((await agent.graph.getState(config)).config);
    await agent.invoke(null as never, config);
    expect(messageText(lastOf(await storedMessages(agent.graph as never, config.configurable.thread_id)))).toBe("done with result 0");
  });

  it("ends a drained run's turn the saver did not see end (a drain requested before the run's first call)", async () => {
    const { agent, stack } = agentOn();
    const control = new RunControl();
    control.requestDrain("sigterm");
    await expect(agent.invoke({ messages: [new HumanMessage("hello")] }, { ...config, control } as never)).rejects.toThrow(/drained/i);
    // No model or tool call ran, so the saver never saw the drain: the lease holds.
    await expect(agent.invoke({ messages: [new HumanMessage("again")] }, config)).rejects.toThrow(/another turn is running/);
    await (stack.checkpointer as ThreadwiseSaver).endTurn((await agent.graph.getState(config)).config);
    await agent.invoke(null as never, config);
    expect(messageText(lastOf(await storedMessages(agent.graph as never, config.configurable.thread_id)))).toBe("ok: hello");
  });
});
