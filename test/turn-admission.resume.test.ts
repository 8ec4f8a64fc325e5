/**
 * Turn admission on every entry path, and the turn lease ending with the run (spec R38, issue 27):
 * - a run resumed from a checkpoint skips `beforeAgent`; when it is refused (its branch reaches
 *   into archived messages: `archived-fork`), it must call no model and run no tool (was: the
 *   model, or the tools, ran before the saver refused the run's checkpoint; seed 102 case 4 of
 *   test/stack.archive.slow.test.ts);
 * - a run that fails where LangGraph writes no error (its reducer failing on the input, the
 *   recursion limit) must not keep the thread (was: `turn-in-progress` for as long as the heartbeat
 *   renewed the lease, up to 30 min in that process; then, for the recursion limit, up to
 *   `turnLeaseMs` after its last checkpoint);
 * - a run whose checkpoint write fails after its first (a storage error, a refusal of a later step)
 *   must release the thread when it fails: LangGraph sends its error to the checkpoint that was not
 *   stored, so no write ends the turn (was: `turn-in-progress` for up to `turnLeaseMs`; the archive
 *   fuzz, seed 104 case 8).
 */
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { Command, interrupt } from "@langchain/langgraph";
import { type Checkpoint, type CheckpointMetadata, MemorySaver } from "@langchain/langgraph-checkpoint";
import { scriptedModel } from "@threadwise/core/testing";
import {
  MemoryThreadRegistry,
  memoryStack,
  messageArchive,
  ThreadwiseArchivedMessageError,
  ThreadwiseConcurrentTurnError,
  ThreadwiseSaver,
  turnAdmission,
} from "@threadwise/memory";
import { createAgent, createMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";

const config = { configurable: { thread_id: "t" } };
const ids = (messages: readonly BaseMessage[]) => messages.map((m) => String(m.id));
/** An in-memory memoryStack with no window, summary, recall or logs: turn admission and the archive's checks only. */
const quietStack = (options: { turnLeaseMs?: number } = {}) =>
  memoryStack({ backend: "in_memory", windowSize: false, summarize: false, recallMaxTokens: false, logger: false, env: {}, ...options });

/** Six turns (the first calls a tool) through turn admission and an archive keeping two groups, archiving in batches of two. */
async function archivedThread() {
  const stack = quietStack();
  const saver = stack.checkpointer as ThreadwiseSaver;
  const runs: string[] = [];
  const lookup = tool(
    async ({ q }: { q: string }) => {
      runs.push(q);
      return `found ${q}`;
    },
    {
      name: "lookup",
      description: "looks a thing up",
      schema: z.object({ q: z.string() }),
    },
  );
  const model = scriptedModel((messages, call) => {
    const last = messages.at(-1) as BaseMessage;
    if (last.getType() === "human" && String(last.content).startsWith("tool"))
      return new AIMessage({ id: `a${call}`, content: "", tool_calls: [{ id: `call${call}`, name: "lookup", args: { q: `q${call}` } }] });
    return new AIMessage({ id: `a${call}`, content: `answer ${call}` });
  });
  const agent = createAgent({
    model,
    tools: [lookup],
    checkpointer: saver,
    middleware: [turnAdmission(saver), messageArchive(saver, { keepGroups: 2, batchMessages: 2, logger: false })],
  });
  for (let k = 0; k < 6; k += 1)
    await agent.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: k === 0 ? "tool please" : `u${k}` })] }, config);
  const history = [];
  for await (const snapshot of agent.graph.getStateHistory(config)) history.push(snapshot);
  const stored = async () => ({ thread: ids(await saver.readThread(config)), history: history.length });
  return { saver, agent, model, runs, history, stored };
}

describe("turn admission: a resumed run refused calls no model and runs no tool", () => {
  it.each([
    ["model_request", "the model node"],
    ["tools", "the tool node"],
  ])("a replay resumed before %s on a branch that reaches into the archive is refused archived-fork", async (node) => {
    const { saver, agent, model, runs, history } = await archivedThread();
    expect(ids(await saver.archivedMessages("t"))).toContain("u0");
    // The oldest checkpoint about to run `node`: turn 0's, whose messages were archived since.
    const at = history.filter((snapshot) => snapshot.next.includes(node)).at(-1);
    expect(at).toBeDefined();
    const calls = model.calls.length;
    const toolRuns = runs.length;
    const thread = ids(await saver.readThread(config));
    // Refused in turnAdmission's wrapModelCall / wrapToolCall, so LangChain wraps it (MiddlewareError): `find` gets it.
    await expect(agent.invoke(null, at?.config)).rejects.toSatisfy(
      (error) => ThreadwiseArchivedMessageError.find(error)?.reason === "archived-fork",
    );
    expect(model.calls.length).toBe(calls);
    expect(runs.length).toBe(toolRuns);
    expect(ids(await saver.readThread(config))).toEqual(thread);
    // The thread takes its next turn at once.
    await agent.invoke({ messages: [new HumanMessage({ id: "u6", content: "u6" })] }, config);
    expect(ids(await saver.readThread(config))).toEqual([...thread, "u6", `a${calls}`]);
  });
});

describe("turn admission: a HITL resume of an old interrupt refused runs no tool", () => {
  it("a Command resuming a superseded interrupt whose branch reaches into the archive is refused archived-fork before the tool runs", async () => {
    const stack = quietStack();
    const saver = stack.checkpointer as ThreadwiseSaver;
    const runs: string[] = [];
    const ask = tool(
      async () => {
        const answer = interrupt("confirm?") as string;
        runs.push(answer);
        return `confirmed ${answer}`;
      },
      { name: "ask", description: "asks the user", schema: z.object({}) },
    );
    const model = scriptedModel((_messages, call) =>
      call === 0
        ? new AIMessage({ id: "a0", content: "", tool_calls: [{ id: "c0", name: "ask", args: {} }] })
        : new AIMessage({ id: `a${call}`, content: `answer ${call}` }),
    );
    const agent = createAgent({
      model,
      tools: [ask],
      checkpointer: saver,
      middleware: [turnAdmission(saver), messageArchive(saver, { keepGroups: 2, batchMessages: 2, logger: false })],
    });
    await agent.invoke({ messages: [new HumanMessage({ id: "u0", content: "u0" })] }, config);
    const interrupted = await agent.graph.getState(config);
    expect(interrupted.next).toEqual(["tools"]);
    await agent.invoke(new Command({ resume: "yes" }), config);
    for (let k = 1; k < 6; k += 1) await agent.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: `u${k}` })] }, config);
    expect(ids(await saver.archivedMessages("t"))).toContain("a0");
    const calls = model.calls.length;
    const thread = ids(await saver.readThread(config));
    // LangGraph resumes a Command at the addressed checkpoint without a fork checkpoint: the run's
    // first put comes after the tool ran. Was: the tool ran, then that put was refused.
    await expect(agent.invoke(new Command({ resume: "again" }), interrupted.config)).rejects.toSatisfy(
      (error) => ThreadwiseArchivedMessageError.find(error)?.reason === "archived-fork",
    );
    expect(runs).toEqual(["yes"]);
    expect(model.calls.length).toBe(calls);
    expect(ids(await saver.readThread(config))).toEqual(thread);
  });
});

describe("turn lease: ends with the run, however it ends", () => {
  function agentOn(turnLeaseMs: number, answer: (call: number) => AIMessage | Error, strict = true) {
    const stack = quietStack({ turnLeaseMs });
    const saver = stack.checkpointer as ThreadwiseSaver;
    const spin = tool(async () => "again", { name: "spin", description: "spins", schema: z.object({}) });
    const model = scriptedModel((_messages, call) => answer(call), { strict });
    return { saver, agent: createAgent({ model, tools: [spin], checkpointer: saver, middleware: [turnAdmission(saver)] }) };
  }
  const answer = (call: number) => new AIMessage({ id: `a${call}`, content: `answer ${call}` });

  it("a RemoveMessage of an unknown id (LangGraph's reducer fails after the input checkpoint) stores nothing and leaves no lease", async () => {
    const { saver, agent } = agentOn(10_000, answer);
    await agent.invoke({ messages: [new HumanMessage({ id: "u0", content: "u0" })] }, config);
    const before = ids(await saver.readThread(config));
    await expect(agent.invoke({ messages: [new RemoveMessage({ id: "nope" })] }, config)).rejects.toThrow(/doesn't exist \('nope'\)/);
    expect(ids(await saver.readThread(config))).toEqual(before);
    // Was: ThreadwiseConcurrentTurnError (turn-in-progress), the heartbeat renewing the lease for up to 30 min.
    await agent.invoke({ messages: [new HumanMessage({ id: "u1", content: "u1" })] }, config);
    expect(ids(await saver.readThread(config))).toEqual([...before, "u1", "a1"]);
  });

  it("a model that throws (an error in a node: LangGraph writes it) releases the lease at once", async () => {
    const { saver, agent } = agentOn(10_000, (call) => (call === 1 ? new Error("provider down") : answer(call)));
    await agent.invoke({ messages: [new HumanMessage({ id: "u0", content: "u0" })] }, config);
    await expect(agent.invoke({ messages: [new HumanMessage({ id: "u1", content: "u1" })] }, config)).rejects.toThrow(/provider down/);
    await agent.invoke({ messages: [new HumanMessage({ id: "u2", content: "u2" })] }, config);
    expect(ids(await saver.readThread(config)).slice(-2)).toEqual(["u2", "a2"]);
  });

  // The archive fuzz (seed 104 case 8) met it as a fork refused at its third step; any failure of a
  // later step's put ends the run the same way (its error goes to the checkpoint that was not stored).
  it("a run whose checkpoint write fails after its first step releases the lease when it fails", async () => {
    /** A MemorySaver whose put of a step ending with the model's answer fails while `failing` is set (a storage error). */
    class FailingSaver extends MemorySaver {
      failing = false;
      override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata) {
        const last = (checkpoint.channel_values?.messages as BaseMessage[] | undefined)?.at(-1);
        if (this.failing && metadata.source === "loop" && last?.getType() === "ai") throw new Error("disk full");
        return super.put(config, checkpoint, metadata);
      }
    }
    const inner = new FailingSaver();
    const saver = new ThreadwiseSaver(inner, new MemoryThreadRegistry(inner), { turnLeaseMs: 10_000 });
    const agent = createAgent({
      model: scriptedModel((_messages, call) => answer(call)),
      checkpointer: saver,
      middleware: [turnAdmission(saver)],
    });
    await agent.invoke({ messages: [new HumanMessage({ id: "u0", content: "u0" })] }, config);
    // Turn 1's steps up to its model call are stored; the put after the model's answer fails.
    inner.failing = true;
    await expect(agent.invoke({ messages: [new HumanMessage({ id: "u1", content: "u1" })] }, config)).rejects.toThrow(/disk full/);
    inner.failing = false;
    // Was: ThreadwiseConcurrentTurnError (turn-in-progress) until the lease lapsed, 10 s after the failed run's last checkpoint.
    await agent.invoke({ messages: [new HumanMessage({ id: "u2", content: "u2" })] }, config);
    expect(ids(await saver.readThread(config))).toEqual(["u0", "a0", "u1", "u2", "a2"]);
  });

  it("a run stopped by the recursion limit (LangGraph writes no error) releases the thread with its last checkpoint", async () => {
    // Not strict: the new turn below follows a tool call the stopped run left unanswered.
    const { saver, agent } = agentOn(
      10_000,
      (call) =>
        call < 3 ? new AIMessage({ id: `a${call}`, content: "", tool_calls: [{ id: `c${call}`, name: "spin", args: {} }] }) : answer(call),
      false,
    );
    await expect(
      agent.invoke({ messages: [new HumanMessage({ id: "u0", content: "u0" })] }, { ...config, recursionLimit: 4 }),
    ).rejects.toThrow(/Recursion limit/);
    // Its last checkpoint still has tasks (the tool call sent to the tool node), but it is the run's
    // last step: the thread takes a new turn at once (was: turn-in-progress until the lease lapsed, 10 s here).
    await agent.invoke({ messages: [new HumanMessage({ id: "u1", content: "u1" })] }, config);
    const thread = ids(await saver.readThread(config));
    expect(thread).toContain("u1");
    expect(thread.at(-1)).toBe("a3");
  });

  it("a run stopped by its recursion limit holds the lease through its last model call (only its last checkpoint ends the turn early)", async () => {
    const stack = quietStack();
    const saver = stack.checkpointer as ThreadwiseSaver;
    let entered!: () => void;
    const inCall = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    // Holds the run's second (last) model call until released.
    const hold = createMiddleware({
      name: "test/hold",
      wrapModelCall: async (request, handler) => {
        calls += 1;
        if (calls === 2) {
          entered();
          await released;
        }
        return handler(request);
      },
    });
    const spin = tool(async () => "again", { name: "spin", description: "spins", schema: z.object({}) });
    const model = scriptedModel((_m, call) =>
      call === 0 ? new AIMessage({ id: "a0", content: "", tool_calls: [{ id: "c0", name: "spin", args: {} }] }) : answer(call),
    );
    const agent = createAgent({ model, tools: [spin], checkpointer: saver, middleware: [turnAdmission(saver), hold] });
    // The run stores steps -1 (its input) to 4 (the last answer); recursionLimit 4 makes step 4 its
    // last (LangGraph stops it there with GraphRecursionError), so the second model call runs from
    // step 3, the last step before it (a last step counted one too early released the lease there).
    const turn = agent.invoke({ messages: [new HumanMessage({ id: "u0", content: "u0" })] }, { ...config, recursionLimit: 4 });
    await inCall;
    const concurrent = await agent.invoke({ messages: [new HumanMessage({ id: "x", content: "x" })] }, config).catch((error) => error);
    release();
    await expect(turn).rejects.toThrow(/Recursion limit/);
    expect(ThreadwiseConcurrentTurnError.find(concurrent)?.reason).toBe("turn-in-progress");
    expect(ids(await saver.readThread(config))).toEqual(["u0", "a0", expect.any(String), "a1"]);
  });

  it("a turn whose tool runs holds the lease (the checkpoint before the tools has only the tool calls sent to the tool node to run)", async () => {
    const stack = quietStack();
    const saver = stack.checkpointer as ThreadwiseSaver;
    let entered!: () => void;
    const inTool = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = tool(
      async () => {
        entered();
        await released;
        return "done";
      },
      { name: "slow", description: "takes long", schema: z.object({}) },
    );
    const model = scriptedModel((_m, call) =>
      call === 0 ? new AIMessage({ id: "a0", content: "", tool_calls: [{ id: "c0", name: "slow", args: {} }] }) : answer(call),
    );
    const agent = createAgent({ model, tools: [slow], checkpointer: saver, middleware: [turnAdmission(saver)] });
    const turn = agent.invoke({ messages: [new HumanMessage({ id: "u0", content: "u0" })] }, config);
    await inTool;
    // Another turn of the thread while the tool runs: was admitted (the checkpoint before the tools released the lease).
    const concurrent = await agent.invoke({ messages: [new HumanMessage({ id: "x", content: "x" })] }, config).catch((error) => error);
    release();
    await turn;
    expect(ThreadwiseConcurrentTurnError.find(concurrent)?.reason).toBe("turn-in-progress");
    expect(model.calls.length).toBe(2);
    expect(ids(await saver.readThread(config))).toEqual(["u0", "a0", expect.any(String), "a1"]);
  });
});

describe("turn admission: a resume at the head takes the turn lease before its first call", () => {
  /** A tool that waits in its run until released, and an agent with it behind turnAdmission. */
  function heldToolAgent(options: { interrupting?: boolean } = {}) {
    const stack = quietStack();
    const saver = stack.checkpointer as ThreadwiseSaver;
    let entered!: () => void;
    const inTool = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const runs: string[] = [];
    const slow = tool(
      async () => {
        if (options.interrupting) runs.push(interrupt("confirm?") as string);
        else runs.push("ran");
        entered();
        await released;
        return "done";
      },
      { name: "slow", description: "takes long", schema: z.object({}) },
    );
    const model = scriptedModel((_m, call) =>
      call === 0
        ? new AIMessage({ id: "a0", content: "", tool_calls: [{ id: "c0", name: "slow", args: {} }] })
        : new AIMessage({ id: `a${call}`, content: `answer ${call}` }),
    );
    const agent = createAgent({ model, tools: [slow], checkpointer: saver, middleware: [turnAdmission(saver)] });
    return { saver, agent, model, runs, inTool, release };
  }

  it("a HITL Command resuming at the head holds the lease while its tool runs: a new turn meanwhile is refused turn-in-progress", async () => {
    const { saver, agent, model, runs, inTool, release } = heldToolAgent({ interrupting: true });
    await agent.invoke({ messages: [new HumanMessage({ id: "u0", content: "u0" })] }, config);
    expect((await agent.graph.getState(config)).next).toEqual(["tools"]);
    // LangGraph stores the resumed run's first checkpoint only after the tool: was no lease until then.
    const resumed = agent.invoke(new Command({ resume: "yes" }), config);
    await inTool;
    const concurrent = await agent.invoke({ messages: [new HumanMessage({ id: "x", content: "x" })] }, config).catch((error) => error);
    release();
    await resumed;
    // Was: admitted, and the resumed run failed lease-lost after its tool ran.
    expect(ThreadwiseConcurrentTurnError.find(concurrent)?.reason).toBe("turn-in-progress");
    expect(runs).toEqual(["yes"]);
    expect(model.calls.length).toBe(2);
    expect(ids(await saver.readThread(config))).toEqual(["u0", "a0", expect.any(String), "a1"]);
  });

  it("a resume at the head while another run holds the lease runs no tool, stores nothing and leaves that run's lease", async () => {
    const { saver, agent, model, runs, inTool, release } = heldToolAgent();
    const turn = agent.invoke({ messages: [new HumanMessage({ id: "u0", content: "u0" })] }, config);
    await inTool;
    // The head is the turn's checkpoint before its tools: a resume there would run the same tool again.
    // Under LangGraph's default async durability that checkpoint may still be in its put when the tool starts.
    let state = await agent.graph.getState(config);
    while (state.next[0] !== "tools") {
      await new Promise((resolve) => setTimeout(resolve, 5));
      state = await agent.graph.getState(config);
    }
    const head = state.config.configurable?.checkpoint_id;
    const resumed = await agent.invoke(null, config).catch((error) => error);
    expect(ThreadwiseConcurrentTurnError.find(resumed)?.reason).toBe("turn-in-progress");
    expect(runs).toEqual(["ran"]);
    expect((await agent.graph.getState(config)).config.configurable?.checkpoint_id).toBe(head);
    // Its refusal ended no lease: the running turn still keeps the thread.
    const third = await agent.invoke({ messages: [new HumanMessage({ id: "x", content: "x" })] }, config).catch((error) => error);
    expect(ThreadwiseConcurrentTurnError.find(third)?.reason).toBe("turn-in-progress");
    release();
    await turn;
    expect(model.calls.length).toBe(2);
    expect(ids(await saver.readThread(config))).toEqual(["u0", "a0", expect.any(String), "a1"]);
  });
});
