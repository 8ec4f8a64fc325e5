import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { Command, interrupt, MemorySaver } from "@langchain/langgraph";
import {
  countCharacters,
  loneSurrogateAt,
  readSummarySlot,
  SUMMARY_SLOT_KEY,
  summarySlotMiddleware,
  summarySlotState,
  systemText,
  ThreadwiseConfigError,
  tailContextOf,
} from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createAgent, createMiddleware, modelRetryMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { workMemory } from "./work-memory.js";

const SYSTEM = "You are a travel agent.";

/** A condenser that answers `note:<first line of the response text>`, and records what it saw. */
function condenser(answer?: (projection: string) => string | Error) {
  return scriptedModel((messages) => {
    const projection = String((messages.at(-1) as BaseMessage).content);
    if (answer) return answer(projection);
    const text = projection.split("\n")[1] ?? "";
    return `note:${text}`;
  });
}

function lines() {
  const out: string[] = [];
  return { out, logger: { info: (m: string) => out.push(m), warn: (m: string) => out.push(`WARN ${m}`) } };
}

async function slotOf(agent: { graph: { getState: (c: object) => Promise<{ values: unknown }> } }, threadId: string) {
  return readSummarySlot((await agent.graph.getState({ configurable: { thread_id: threadId } })).values);
}

const turn = (text: string) => ({ messages: [new HumanMessage(text)] });
const thread = (id: string) => ({ configurable: { thread_id: id } });

describe("workMemory options", () => {
  it("rejects a bad option naming it", () => {
    expect(() => workMemory({ maxItems: 0 })).toThrow(ThreadwiseConfigError);
    expect(() => workMemory({ maxItems: 0 })).toThrow(/workMemory\.maxItems/);
    expect(() => workMemory({ maxCharacters: -1 })).toThrow(/workMemory\.maxCharacters/);
    expect(() => workMemory({ model: {} as never })).toThrow(/workMemory\.model/);
    expect(() => workMemory({ promptContextMode: "tail" as never })).toThrow(/workMemory\.promptContextMode/);
  });
});

describe("workMemory in an agent", () => {
  it("condenses a finished answer into the slot and places it on the next model call", async () => {
    const model = scriptedModel((_m, call) => `Booked flight ${call + 1} to Busan.`);
    const memory = condenser();
    const log = lines();
    const agent = createAgent({
      model,
      systemPrompt: SYSTEM,
      checkpointer: new MemorySaver(),
      middleware: [workMemory({ model: memory, logger: log.logger })],
    });
    const tags: string[][] = [];
    const named: { metadata: unknown; runName: unknown }[] = [];
    const callbacks = [
      {
        handleChatModelStart: (...args: unknown[]) => {
          tags.push((args[5] as string[]) ?? []);
          named.push({ metadata: args[6], runName: args[7] });
        },
      },
    ];
    await agent.invoke(turn("Book me a flight"), { ...thread("wm-1"), callbacks });
    const slot = await slotOf(agent, "wm-1");
    expect(slot.workMemory?.entries.map((e) => e.text)).toEqual(["note:Booked flight 1 to Busan."]);
    expect(slot.summary).toBeUndefined();
    expect(memory.calls).toHaveLength(1);
    expect(String(memory.calls[0]?.messages[1]?.content)).toBe("Response text:\nBooked flight 1 to Busan.");
    expect(tags.some((t) => t.includes("threadwise:internal") && t.includes("nostream"))).toBe(true);
    expect(named).toContainEqual({
      metadata: expect.objectContaining({ threadwise_internal: "threadwise/work-memory:condense" }),
      runName: "threadwise/work-memory:condense",
    });
    expect(log.out).toContain("work_memory: stored entries=1 characters=30");

    await agent.invoke(turn("And a hotel"), thread("wm-1"));
    const second = model.calls[1] as { messages: BaseMessage[] };
    const system = second.messages[0] as BaseMessage;
    expect(systemText(system as never)).toBe(`${SYSTEM}\n\n[Work memory]\n- note:Booked flight 1 to Busan.`);
    // The stored thread holds only the real conversation.
    const stored = (await agent.graph.getState(thread("wm-1"))).values as { messages: BaseMessage[] };
    expect(stored.messages.map((m) => m.content)).toEqual([
      "Book me a flight",
      "Booked flight 1 to Busan.",
      "And a hotel",
      "Booked flight 2 to Busan.",
    ]);
    expect((await slotOf(agent, "wm-1")).workMemory?.entries).toHaveLength(2);
  });

  // A condensation cut mid-emoji holds a lone surrogate; placed as it came, Anthropic and Gemini
  // refused every later request of the thread.
  it("stores a condensed note with a lone UTF-16 surrogate well-formed (U+FFFD in its place)", async () => {
    const model = scriptedModel(() => "Booked the 🍜 place.");
    const agent = createAgent({
      model,
      systemPrompt: SYSTEM,
      checkpointer: new MemorySaver(),
      middleware: [workMemory({ model: condenser(() => `note: booked the ${"🍜".slice(0, 1)}`), logger: false })],
    });
    await agent.invoke(turn("Book a ramen place"), thread("wm-cut"));
    expect((await slotOf(agent, "wm-cut")).workMemory?.entries.map((e) => e.text)).toEqual(["note: booked the \uFFFD"]);
    await agent.invoke(turn("And dessert"), thread("wm-cut"));
    const system = systemText((model.calls[1] as { messages: BaseMessage[] }).messages[0] as never);
    expect(system).toBe(`${SYSTEM}\n\n[Work memory]\n- note: booked the \uFFFD`);
    expect(loneSurrogateAt(system)).toBe(-1);
  });

  it("does not stream the internal condensation call to the user", async () => {
    const agent = createAgent({
      model: scriptedModel(() => "Ticket T-9 opened."),
      checkpointer: new MemorySaver(),
      middleware: [workMemory({ model: condenser(), logger: false })],
    });
    const streamed: string[] = [];
    for await (const [chunk] of await agent.stream(turn("open a ticket"), { ...thread("wm-stream"), streamMode: "messages" })) {
      streamed.push(String((chunk as BaseMessage).content));
    }
    expect(streamed.join("")).toContain("Ticket T-9 opened.");
    expect(streamed.join("")).not.toContain("note:");
    expect((await slotOf(agent, "wm-stream")).workMemory?.entries.map((e) => e.text)).toEqual(["note:Ticket T-9 opened."]);
  });

  it("places the envelope after the newest user message in stable_tail mode", async () => {
    const model = scriptedModel(() => "Done: seat 12A.");
    const agent = createAgent({
      model,
      systemPrompt: SYSTEM,
      checkpointer: new MemorySaver(),
      middleware: [workMemory({ model: condenser(), promptContextMode: "stable_tail", logger: false })],
    });
    await agent.invoke(turn("Pick a seat"), thread("wm-tail"));
    await agent.invoke(turn("Thanks"), thread("wm-tail"));
    const seen = (model.calls[1] as { messages: BaseMessage[] }).messages;
    expect(systemText(seen[0] as never)).toBe(SYSTEM);
    expect(seen.map((m) => m.getType())).toEqual(["system", "human", "ai", "human"]);
    expect(tailContextOf(seen.at(-1) as BaseMessage)).toContain("[Work memory]\n- note:Done: seat 12A.");
  });

  it("keeps at most maxItems entries and maxCharacters characters, oldest out first, counting Korean in characters", async () => {
    const answers = ["가".repeat(40), "나".repeat(40), "다".repeat(40), "라".repeat(40), "마".repeat(40)];
    const model = scriptedModel((_m, call) => answers[call] as string);
    const agent = createAgent({
      model,
      checkpointer: new MemorySaver(),
      middleware: [
        workMemory({ model: condenser((p) => (p.split("\n")[1] ?? "").slice(0, 30)), maxItems: 3, maxCharacters: 70, logger: false }),
      ],
    });
    for (let i = 0; i < 5; i += 1) await agent.invoke(turn(`turn ${i}`), thread("wm-bounds"));
    const entries = (await slotOf(agent, "wm-bounds")).workMemory?.entries ?? [];
    // 30 characters each: three would be 90 > 70, so only the newest two fit.
    expect(entries.map((e) => e.text)).toEqual(["라".repeat(30), "마".repeat(30)]);
    expect(entries.reduce((n, e) => n + countCharacters(e.text), 0)).toBe(60);

    const wide = createAgent({
      model: scriptedModel((_m, call) => `answer ${call}`),
      checkpointer: new MemorySaver(),
      middleware: [workMemory({ model: condenser(), maxItems: 3, logger: false })],
    });
    for (let i = 0; i < 5; i += 1) await wide.invoke(turn(`turn ${i}`), thread("wm-items"));
    expect((await slotOf(wide, "wm-items")).workMemory?.entries.map((e) => e.text)).toEqual([
      "note:answer 2",
      "note:answer 3",
      "note:answer 4",
    ]);
  });

  it("uses the agent's own model for condensation when no model is given", async () => {
    const model = scriptedModel((messages) => {
      const system = messages[0]?.getType() === "system" ? String(messages[0]?.content) : "";
      return system.startsWith("You keep the work memory") ? "condensed by agent model" : "Your table is booked for 7pm.";
    });
    const agent = createAgent({ model, checkpointer: new MemorySaver(), middleware: [workMemory({ logger: false })] });
    await agent.invoke(turn("Book dinner"), thread("wm-own"));
    expect((await slotOf(agent, "wm-own")).workMemory?.entries.map((e) => e.text)).toEqual(["condensed by agent model"]);
    expect(model.calls).toHaveLength(2);
  });

  it("never clobbers the summary another middleware keeps in the slot", async () => {
    const summary = { text: "earlier talk", coveredThroughId: null, coveredCount: 2, updatedAt: "2026-01-01T00:00:00Z" };
    const summarizer = createMiddleware({
      name: "fake-summarize",
      stateSchema: summarySlotState,
      afterModel: () => ({ [SUMMARY_SLOT_KEY]: { summary } }) as never,
    });
    const agent = createAgent({
      model: scriptedModel(() => "Flight changed to Friday."),
      checkpointer: new MemorySaver(),
      middleware: [workMemory({ model: condenser(), logger: false }), summarizer],
    });
    await agent.invoke(turn("Move my flight"), thread("wm-summary"));
    const slot = await slotOf(agent, "wm-summary");
    expect(slot.summary).toEqual(summary);
    expect(slot.workMemory?.entries.map((e) => e.text)).toEqual(["note:Flight changed to Friday."]);
  });

  it("is not there when not used: no state key, no extra model call", async () => {
    const model = scriptedModel(() => "plain answer");
    const agent = createAgent({ model, checkpointer: new MemorySaver() });
    await agent.invoke(turn("hi"), thread("wm-off"));
    const values = (await agent.graph.getState(thread("wm-off"))).values as Record<string, unknown>;
    expect(Object.keys(values).sort()).toEqual(["messages"]);
    expect(model.calls).toHaveLength(1);
  });

  it("stores one entry after parallel tool calls, next to a summary written in the same run", async () => {
    const model = fakeModel();
    model.respondWithTools([
      { name: "lookup", args: { city: "Seoul" }, id: "c1" },
      { name: "lookup", args: { city: "Busan" }, id: "c2" },
    ]);
    model.respond(new AIMessage("Seoul 21C, Busan 24C."));
    const lookup = tool(async ({ city }) => `${city}: sunny`, {
      name: "lookup",
      description: "weather",
      schema: z.object({ city: z.string() }),
    });
    const summary = { text: "s", coveredThroughId: null, coveredCount: 0, updatedAt: "t" };
    const summarizer = createMiddleware({
      name: "fake-summarize",
      stateSchema: summarySlotState,
      afterModel: () => ({ [SUMMARY_SLOT_KEY]: { summary } }) as never,
    });
    const memory = condenser();
    const agent = createAgent({
      model,
      tools: [lookup],
      checkpointer: new MemorySaver(),
      middleware: [workMemory({ model: memory, logger: false }), summarizer],
    });
    await agent.invoke(turn("Weather in Seoul and Busan?"), thread("wm-parallel"));
    const state = (await agent.graph.getState(thread("wm-parallel"))).values as { messages: BaseMessage[] };
    expect(state.messages.filter((m) => m.getType() === "tool")).toHaveLength(2);
    const slot = readSummarySlot(state);
    expect(slot.summary).toEqual(summary);
    expect(slot.workMemory?.entries.map((e) => e.text)).toEqual(["note:Seoul 21C, Busan 24C."]);
    // One condensation per run, not one per tool step.
    expect(memory.calls).toHaveLength(1);
  });
});

describe("workMemory never stores", () => {
  async function runOnce(options: {
    answer: AIMessage | string | Error;
    memory?: ReturnType<typeof condenser>;
    middleware?: ReturnType<typeof createMiddleware>[];
    wm?: Parameters<typeof workMemory>[0];
  }) {
    const model = fakeModel();
    model.respond(typeof options.answer === "string" ? new AIMessage(options.answer) : options.answer);
    const memory = options.memory ?? condenser();
    const log = lines();
    const agent = createAgent({
      model,
      checkpointer: new MemorySaver(),
      middleware: [workMemory({ model: memory, logger: log.logger, timeoutMs: 200, ...options.wm }), ...(options.middleware ?? [])],
    });
    const id = `wm-never-${Math.random()}`;
    let error: unknown;
    try {
      await agent.invoke(turn("go"), thread(id));
    } catch (e) {
      error = e;
    }
    const values = (await agent.graph.getState(thread(id))).values as Record<string, unknown>;
    return { slot: readSummarySlot(values), memory, log: log.out, error };
  }

  it("an answer that asks the user for input", async () => {
    const r = await runOnce({ answer: "Which date do you want to fly?" });
    expect(r.slot.workMemory).toBeUndefined();
    expect(r.memory.calls).toHaveLength(0);
    expect(r.log).toContain("work_memory: skipped reason=input_required");
    const korean = await runOnce({ answer: "어느 날짜로 예약할까요？" });
    expect(korean.log).toContain("work_memory: skipped reason=input_required");
  });

  it("a model error (the run fails)", async () => {
    const r = await runOnce({ answer: new Error("provider down") });
    expect(r.error).toBeInstanceOf(Error);
    expect(r.slot.workMemory).toBeUndefined();
    expect(r.memory.calls).toHaveLength(0);
  });

  it("a failure turned into an answer by modelRetryMiddleware", async () => {
    const r = await runOnce({
      answer: new Error("provider down"),
      middleware: [modelRetryMiddleware({ maxRetries: 0, onFailure: "continue" }) as never],
    });
    expect(r.error).toBeUndefined();
    expect(r.slot.workMemory).toBeUndefined();
    expect(r.log).toContain("work_memory: skipped reason=failed");
  });

  it("an answer cut by the token limit (finish_reason length)", async () => {
    const r = await runOnce({
      answer: new AIMessage({ content: "The itinerary is: day 1", response_metadata: { finish_reason: "length" } }),
    });
    expect(r.slot.workMemory).toBeUndefined();
    expect(r.log).toContain("work_memory: skipped reason=failed");
  });

  it("an answer a guardrail replaced and ended the run with jumpTo end", async () => {
    const guardrail = createMiddleware({
      name: "guardrail",
      afterModel: {
        canJumpTo: ["end"],
        hook: () => ({ messages: [new AIMessage("I can't help with that.")], jumpTo: "end" as const }),
      },
    });
    const r = await runOnce({ answer: "Here is the secret code 1234.", middleware: [guardrail as never] });
    expect(r.slot.workMemory).toBeUndefined();
    expect(r.memory.calls).toHaveLength(0);
    expect(r.log).toContain("work_memory: skipped reason=replaced");
  });

  it("an answer a guardrail rewrote in place (same id)", async () => {
    const redact = createMiddleware({
      name: "redact",
      afterModel: (state) => {
        const last = state.messages.at(-1) as AIMessage;
        return { messages: [new AIMessage({ id: last.id, content: "[redacted]" })] };
      },
    });
    const r = await runOnce({ answer: "Card 4111 1111 1111 1111 charged.", middleware: [redact as never] });
    expect(r.slot.workMemory).toBeUndefined();
    expect(r.log).toContain("work_memory: skipped reason=replaced");
  });

  it("an answer an output check marked as blocked", async () => {
    const marked = await runOnce({ answer: new AIMessage({ content: "unsafe text", response_metadata: { threadwise_blocked: true } }) });
    expect(marked.log).toContain("work_memory: skipped reason=blocked");
    const filtered = await runOnce({
      answer: new AIMessage({ content: "partial", response_metadata: { finish_reason: "content_filter" } }),
    });
    expect(filtered.slot.workMemory).toBeUndefined();
    const custom = await runOnce({ answer: "looks fine", wm: { isBlocked: (m) => String(m.content).includes("fine") } });
    expect(custom.log).toContain("work_memory: skipped reason=blocked");
    expect(custom.slot.workMemory).toBeUndefined();
  });

  it("an empty condensation, and the answer NONE", async () => {
    const empty = await runOnce({ answer: "Noted.", memory: condenser(() => "   ") });
    expect(empty.slot.workMemory).toBeUndefined();
    expect(empty.log).toContain("work_memory: skipped reason=condensation_empty");
    const none = await runOnce({ answer: "Noted.", memory: condenser(() => "NONE.") });
    expect(none.slot.workMemory).toBeUndefined();
  });

  it("a failed condensation, and the turn still ends normally", async () => {
    const r = await runOnce({ answer: "Booked.", memory: condenser(() => new Error("condenser down")) });
    expect(r.error).toBeUndefined();
    expect(r.slot.workMemory).toBeUndefined();
    expect(r.log).toContain("WARN work_memory: condensation failed; nothing stored");
  });

  it("a condensation that times out", async () => {
    const slow = fakeModel();
    slow.respond(() => new AIMessage("late"));
    const hanging = Object.assign(Object.create(slow), {
      invoke: () => new Promise(() => {}),
    }) as ReturnType<typeof condenser>;
    const started = Date.now();
    const r = await runOnce({ answer: "Booked.", memory: hanging, wm: { timeoutMs: 50 } });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(r.error).toBeUndefined();
    expect(r.slot.workMemory).toBeUndefined();
    expect(r.log).toContain("WARN work_memory: condensation failed; nothing stored");
  });

  it("a run interrupted to wait on the user; the answer is stored once the run is resumed and completes", async () => {
    const approval = createMiddleware({
      name: "approval",
      afterModel: () => {
        const decision = interrupt("approve?") as string;
        return decision === "yes" ? undefined : { messages: [new AIMessage("Cancelled.")] };
      },
    });
    const memory = condenser();
    const agent = createAgent({
      model: scriptedModel(() => "Transfer of 100 EUR prepared."),
      checkpointer: new MemorySaver(),
      middleware: [workMemory({ model: memory, logger: false }), approval],
    });
    const paused = await agent.invoke(turn("Send 100 EUR"), thread("wm-interrupt"));
    expect((paused as { __interrupt__?: unknown[] }).__interrupt__).toHaveLength(1);
    // Only the record of the model call waits in the checkpoint (a digest, no text), for whichever process resumes.
    const waiting = (await slotOf(agent, "wm-interrupt")).workMemory;
    expect(waiting?.entries).toEqual([]);
    expect(JSON.stringify(waiting?.pending)).not.toContain("EUR");
    expect(memory.calls).toHaveLength(0);
    await agent.invoke(new Command({ resume: "yes" }) as never, thread("wm-interrupt"));
    expect((await slotOf(agent, "wm-interrupt")).workMemory?.entries.map((e) => e.text)).toEqual(["note:Transfer of 100 EUR prepared."]);
  });

  it("keeps what was stored before when a later answer is not stored", async () => {
    const model = scriptedModel((_m, call) => (call === 0 ? "Booked seat 4C." : "Which meal do you prefer?"));
    const agent = createAgent({ model, checkpointer: new MemorySaver(), middleware: [workMemory({ model: condenser(), logger: false })] });
    await agent.invoke(turn("seat"), thread("wm-keep"));
    await agent.invoke(turn("meal"), thread("wm-keep"));
    expect((await slotOf(agent, "wm-keep")).workMemory?.entries.map((e) => e.text)).toEqual(["note:Booked seat 4C."]);
  });
});

// The README said "put workMemory first" while memoryStack places it after windowTrim and
// summarize. What matters is its place relative to middlewares with an after-hook that checks the
// answer: LangChain runs `afterAgent` hooks last-listed first, and an `afterAgent` hook that jumps
// to `end` skips those listed before it. Among threadwise middlewares its place changes nothing
// (none before it in memoryStack has an `afterAgent` hook; context blocks are sorted by kind).
describe("workMemory's place in the middleware list", () => {
  /** An output check in `afterAgent`: replaces the answer with a refusal (and ends the run, with `jump`). */
  const refusal = (jump: boolean) =>
    createMiddleware({
      name: "output-check",
      afterAgent: {
        canJumpTo: ["end"],
        hook: () => ({ messages: [new AIMessage("I can't share that.")], ...(jump ? { jumpTo: "end" as const } : {}) }),
      },
    });

  async function run(order: "work-memory-first" | "check-first", jump: boolean) {
    const memory = condenser();
    const log = lines();
    const wm = workMemory({ model: memory, logger: log.logger });
    const agent = createAgent({
      model: scriptedModel(() => "The vault code is 4417."),
      checkpointer: new MemorySaver(),
      middleware: order === "work-memory-first" ? [wm, refusal(jump)] : [refusal(jump), wm],
    });
    const id = `wm-order-${order}-${jump}`;
    await agent.invoke(turn("open the vault"), thread(id));
    const stored = (await agent.graph.getState(thread(id))).values as { messages: BaseMessage[] };
    return { slot: await slotOf(agent, id), memory, log: log.out, last: stored.messages.at(-1) };
  }

  it("before an afterAgent output check: the replaced answer is never stored", async () => {
    // The check's afterAgent runs first; workMemory's then sees the refusal, not the model's answer.
    const rewritten = await run("work-memory-first", false);
    expect(String(rewritten.last?.content)).toBe("I can't share that.");
    expect(rewritten.slot.workMemory).toBeUndefined();
    expect(rewritten.log).toContain("work_memory: skipped reason=replaced");
    // A check that jumps to end skips the afterAgent hooks listed before it: workMemory's does not run.
    const ended = await run("work-memory-first", true);
    expect(String(ended.last?.content)).toBe("I can't share that.");
    // Only the model call's record is left (the next run's beforeAgent removes it).
    expect(ended.slot.workMemory?.entries).toEqual([]);
    expect(ended.memory.calls).toHaveLength(0);
  });

  it("after it (the order to avoid): workMemory commits the answer the check then replaces", async () => {
    for (const jump of [false, true]) {
      const r = await run("check-first", jump);
      expect(String(r.last?.content)).toBe("I can't share that.");
      // The user never saw the answer, but every later prompt of the thread carries it.
      expect(r.slot.workMemory?.entries.map((e) => e.text)).toEqual(["note:The vault code is 4417."]);
    }
  });
});

describe("workMemory structured output", () => {
  it("sends file metadata, never inline base64, to the condensation call", async () => {
    const base64 = Buffer.from("x".repeat(600)).toString("base64");
    const answer = new AIMessage({
      content: [
        { type: "text", text: "Here is your boarding pass." },
        { type: "file", mime_type: "application/pdf", filename: "pass.pdf", data: base64 },
        { type: "image", url: `data:image/png;base64,${base64}` },
      ],
    });
    const memory = condenser(() => "boarding pass pass.pdf sent");
    const model = fakeModel();
    model.respond(answer);
    const agent = createAgent({ model, checkpointer: new MemorySaver(), middleware: [workMemory({ model: memory, logger: false })] });
    await agent.invoke(turn("pass?"), thread("wm-file"));
    const projection = String(memory.calls[0]?.messages[1]?.content);
    expect(projection).toContain("pass.pdf");
    expect(projection).toContain("application/pdf");
    expect(projection).not.toContain(base64.slice(0, 40));
    expect((await slotOf(agent, "wm-file")).workMemory?.entries.map((e) => e.text)).toEqual(["boarding pass pass.pdf sent"]);
  });
});

describe("workMemory with a structured responseFormat", () => {
  const schema = z.object({ seat: z.string(), flight: z.string() }).meta({ title: "booking" });
  /** An agent whose model answers with the structured output tool, and an afterAgent check that waits on a reviewer. */
  function build(checkpointer: MemorySaver, structuredResponse: boolean, log = lines()) {
    const model = scriptedModel(
      (_m, call) =>
        new AIMessage({
          content: "",
          tool_calls: [{ id: `call_b${call}`, name: "booking", args: { seat: "12A", flight: "KE123" }, type: "tool_call" }],
        }),
    );
    const approve = createMiddleware({
      name: "approve-answer",
      afterAgent: () => {
        interrupt("approve the answer?");
        return undefined;
      },
    });
    const memory = condenser((projection) => `note:${projection.split("\n").at(-1)}`);
    const agent = createAgent({
      model,
      checkpointer,
      responseFormat: schema,
      middleware: [workMemory({ model: memory, structuredResponse, logger: log.logger }), approve],
    });
    return { agent, memory, log };
  }

  it("with structuredResponse: true, a run resumed by a fresh process stores the structured output the process that ran it stores", async () => {
    const checkpointer = new MemorySaver();
    const ours = build(checkpointer, true);
    await ours.agent.invoke(turn("book 12A"), thread("wm-structured"));
    const waiting = await ours.agent.graph.getState(thread("wm-structured"));
    expect(waiting.next).toEqual(["approve-answer.after_agent"]);
    const fresh = build(checkpointer, true);
    await fresh.agent.invoke(new Command({ resume: true }) as never, waiting.config as never);
    const theirs = (await slotOf(fresh.agent, "wm-structured")).workMemory?.entries.map((e) => e.text);
    await ours.agent.invoke(new Command({ resume: true }) as never, waiting.config as never);
    const stored = (await slotOf(ours.agent, "wm-structured")).workMemory?.entries.map((e) => e.text);
    expect(stored).toEqual(['note:{"seat":"12A","flight":"KE123"}']);
    expect(theirs).toEqual(stored);
  });

  it("without it, a structured answer is not stored and a warning names the option", async () => {
    const { agent, memory, log } = build(new MemorySaver(), false);
    await agent.invoke(turn("book 12A"), thread("wm-structured-off"));
    await agent.invoke(new Command({ resume: true }) as never, thread("wm-structured-off"));
    expect((await slotOf(agent, "wm-structured-off")).workMemory).toBeUndefined();
    expect(memory.calls).toHaveLength(0);
    expect(log.out.filter((line) => line.startsWith("WARN"))).toEqual([expect.stringContaining("structuredResponse: true")]);
  });
});

describe("workMemory({ declareState: false })", () => {
  /** Four runs with maxItems 2: the envelope's bound is computed from the slot the afterAgent hook reads. */
  async function run(middleware: () => ReturnType<typeof createMiddleware>[]) {
    const model = scriptedModel((_m, call) => `Booked flight ${call + 1} to Busan.`);
    const agent = createAgent({ model, systemPrompt: SYSTEM, checkpointer: new MemorySaver(), middleware: middleware() });
    for (const text of ["one", "two", "three", "four"]) await agent.invoke(turn(text), thread("wm-shared"));
    return {
      systems: model.calls.map((call) => systemText((call as { messages: BaseMessage[] }).messages[0] as never)),
      entries: (await slotOf(agent, "wm-shared")).workMemory?.entries.map((e) => e.text),
    };
  }

  it("with summarySlotMiddleware sends the requests and keeps the envelope of the default", async () => {
    expect(workMemory().stateSchema).toBeDefined();
    expect(workMemory({ declareState: false }).stateSchema).toBeUndefined();
    const declared = await run(() => [workMemory({ model: condenser(), maxItems: 2, logger: false })]);
    const shared = await run(() => [
      summarySlotMiddleware(),
      workMemory({ model: condenser(), maxItems: 2, logger: false, declareState: false }),
    ]);
    // The bound held (2 of 4), so the hook read the envelope it bounds (an unread slot keeps 1).
    expect(declared.entries).toEqual(["note:Booked flight 3 to Busan.", "note:Booked flight 4 to Busan."]);
    expect(shared).toEqual(declared);
  });

  it("without a middleware declaring the slot, a model call throws naming workMemory.declareState", async () => {
    const agent = createAgent({
      model: scriptedModel(() => "ok"),
      checkpointer: new MemorySaver(),
      middleware: [workMemory({ model: condenser(), logger: false, declareState: false })],
    });
    const error = await agent.invoke(turn("hi"), thread("wm-undeclared")).catch((e: unknown) => e);
    expect(ThreadwiseConfigError.find(error)?.option, String(error)).toBe("workMemory.declareState");
  });
});
