/**
 * Answering an interrupt again from the checkpoint where it was raised (time travel in a HITL UI:
 * "change my answer"), after the first answer moved the thread on. LangGraph's own savers run it as
 * a branch; threadwise's refused it `lease-lost` ("this turn sent no checkpoint or heartbeat for
 * longer than its lease"), though no lease had lapsed, on every backend. Full `memoryStack`,
 * strict model (four providers' rules).
 */
import { type AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { Command, interrupt, MemorySaver } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { memoryStack, ThreadwiseConcurrentTurnError } from "@threadwise/memory";
import { createAgent, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { agentModel, BACKENDS, backendStorage, stackOptions, TOOLS } from "./support/break-agent.js";

const storage = backendStorage("brf");
let n = 0;

type Lane = "langgraph" | (typeof BACKENDS)[number];

/** A thread interrupted in a tool, answered three times from the checkpoint that raised it, then continued: what each step left. */
async function answerAgain(backend: Lane) {
  const stack = backend === "langgraph" ? undefined : memoryStack(stackOptions(storage(backend)));
  const model = agentModel();
  const agent = createAgent({
    model,
    tools: TOOLS,
    middleware: stack?.middleware ?? [],
    checkpointer: stack?.checkpointer ?? new MemorySaver(),
  });
  const thread = `t-rf-${backend}-${++n}`;
  const cfg = (checkpointId?: string) => ({
    configurable: { thread_id: thread, ...(checkpointId ? { checkpoint_id: checkpointId } : {}) },
  });
  const seen: string[] = [];
  const record = async (label: string) => {
    const messages = ((await agent.graph.getState(cfg())).values as { messages: BaseMessage[] }).messages;
    seen.push(`${label}: ${messages.map((m) => `${m.getType()}:${messageText(m).slice(0, 30)}`).join(" | ")}`);
  };
  try {
    await agent.invoke({ messages: [new HumanMessage("My name is Mina.")] }, cfg());
    await agent.invoke({ messages: [new HumanMessage("TOOLS asking")] }, cfg());
    const raised = (await agent.graph.getState(cfg())).config.configurable?.checkpoint_id as string;
    for (const answer of ["yes", "no", "maybe"]) {
      const out = (await agent.invoke(new Command({ resume: answer }), cfg(raised))) as { messages: AIMessage[] };
      seen.push(`answered ${answer}: ${messageText(out.messages.at(-1) as BaseMessage).slice(0, 30)}`);
      await record(answer);
    }
    await agent.invoke({ messages: [new HumanMessage("And now?")] }, cfg());
    await record("after");
  } catch (error) {
    seen.push(`refused: ${(error as Error).message}`);
  }
  await stack?.checkpointer?.close();
  return { seen, refusals: model.providerLog.rejected };
}

describe.each(BACKENDS)("an interrupt answered again from where it was raised: %s", (backend) => {
  it("runs as on LangGraph's own saver (a branch per answer, the thread going on from the newest); every request accepted", async () => {
    const reference = await answerAgain("langgraph");
    const ours = await answerAgain(backend);
    expect(ours.seen).toEqual(reference.seen);
    expect(ours.refusals).toEqual([]);
  });
});

describe.each(BACKENDS)("a branch resumed while another turn runs: %s", (backend) => {
  it("is refused turn-in-progress before its tool runs or the model is called", async () => {
    let asked = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered!: () => void;
    const inGate = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const asking = tool(
      async ({ q }: { q: string }) => {
        asked += 1;
        return `approved ${q}: ${String(interrupt({ question: q }))}`;
      },
      { name: "asking", description: "Asks a human.", schema: z.object({ q: z.string() }) },
    );
    const waiting = tool(
      async () => {
        entered();
        await gate;
        return "released";
      },
      { name: "waiting", description: "Waits.", schema: z.object({ q: z.string() }) },
    );
    const stack = memoryStack(stackOptions(storage(backend)));
    const model = agentModel();
    const agent = createAgent({ model, tools: [asking, waiting], middleware: stack.middleware, checkpointer: stack.checkpointer });
    const thread = `t-rfl-${backend}-${++n}`;
    const cfg = (checkpointId?: string) => ({
      configurable: { thread_id: thread, ...(checkpointId ? { checkpoint_id: checkpointId } : {}) },
    });
    await agent.invoke({ messages: [new HumanMessage("TOOLS asking")] }, cfg());
    const raised = (await agent.graph.getState(cfg())).config.configurable?.checkpoint_id as string;
    await agent.invoke(new Command({ resume: "yes" }), cfg(raised));
    const running = agent.invoke({ messages: [new HumanMessage("TOOLS waiting")] }, cfg());
    await inGate;
    const [askedBefore, callsBefore] = [asked, model.calls.length];
    const refused = await agent.invoke(new Command({ resume: "no" }), cfg(raised)).then(
      () => undefined,
      (error: unknown) => error,
    );
    const counts = [asked - askedBefore, model.calls.length - callsBefore];
    release();
    await running;
    // LangChain may wrap a middleware's error (MiddlewareError, the original as `cause`).
    const error = ThreadwiseConcurrentTurnError.isInstance(refused) ? refused : (refused as { cause?: unknown } | undefined)?.cause;
    expect(ThreadwiseConcurrentTurnError.isInstance(error) && error.reason).toBe("turn-in-progress");
    expect(counts).toEqual([0, 0]);
    // Once the turn is done, the same resume runs.
    await agent.invoke(new Command({ resume: "no" }), cfg(raised));
    expect(model.providerLog.rejected).toEqual([]);
    await stack.checkpointer?.close();
  });
});
