/**
 * Threads as LangGraph users really drive them, through the full `memoryStack` on in_memory,
 * SQLite and PostgreSQL, with a strict model (all four providers' rules) and a fresh-process
 * oracle (another `memoryStack` on the same storage runs the same turn from the same checkpoint).
 * See `test/support/break-agent.ts`.
 */
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage, type ToolMessage } from "@langchain/core/messages";
import { Command, REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { type AgentMiddleware, createAgent, modelFallbackMiddleware } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import {
  agentModel,
  BACKENDS,
  backendStorage,
  breakHarness,
  human,
  lastRequest,
  PNG_BASE64,
  requestShape,
  TOOLS,
} from "./support/break-agent.js";

const storage = backendStorage("brk");
const { stackOf, build, cfg, refusals, say, messagesOf, headId, oracleTurn, busyThread, report } = breakHarness(storage);
let threadNo = 0;
afterAll(() => console.log(report("break.threads")));

describe.each(BACKENDS)("threads as LangGraph users drive them: %s", (backend) => {
  it("a busy thread (parallel calls, a throwing tool, a Command, a huge result): every request accepted, same as a fresh process", async () => {
    const b = build(backend);
    const thread = `busy-${backend}-${++threadNo}`;
    await busyThread(b, thread);
    const { mine, fresh, freshRefusals } = await oracleTurn(backend, b, thread, "What do you know about me?");
    expect(refusals(b)).toEqual([]);
    expect(freshRefusals).toEqual([]);
    expect(mine).toEqual(fresh);
  });

  it("RemoveMessage of one result in a parallel tool group, and of a tool-call message: no orphan sent", async () => {
    const b = build(backend);
    const thread = `remove-${backend}-${++threadNo}`;
    await busyThread(b, thread);
    const stored = await messagesOf(b, thread);
    const results = stored.filter((m) => m.getType() === "tool");
    const middle = results.at(-2) as ToolMessage;
    await b.agent.graph.updateState(cfg(thread), { messages: [new RemoveMessage({ id: middle.id as string })] });
    await say(b, thread, "after removing one result");
    const call = stored.find((m) => m.getType() === "ai" && (m as AIMessage).tool_calls?.length) as AIMessage;
    await b.agent.graph.updateState(cfg(thread), { messages: [new RemoveMessage({ id: call.id as string })] });
    const { mine, fresh, freshRefusals } = await oracleTurn(backend, b, thread, "after removing a call");
    expect(refusals(b)).toEqual([]);
    expect(freshRefusals).toEqual([]);
    expect(mine).toEqual(fresh);
  });

  it("REMOVE_ALL_MESSAGES, then a new history: the old summary and facts do not describe it", async () => {
    const b = build(backend);
    const thread = `removeall-${backend}-${++threadNo}`;
    await busyThread(b, thread);
    await b.agent.graph.updateState(cfg(thread), {
      messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), new HumanMessage("I live in Jeju."), new AIMessage("Noted.")],
    });
    const { mine, fresh, freshRefusals } = await oracleTurn(backend, b, thread, "Where do I live?");
    expect(refusals(b)).toEqual([]);
    expect(freshRefusals).toEqual([]);
    expect(mine).toEqual(fresh);
  });

  it("updateState asNode model_request with a tool call, then invoke(null) runs the tool and the model", async () => {
    const b = build(backend);
    const thread = `asnode-${backend}-${++threadNo}`;
    await say(b, thread, "hello");
    await b.agent.graph.updateState(
      cfg(thread),
      { messages: [new AIMessage({ content: "", tool_calls: [{ id: "call_x", name: "lookup", args: { q: "x" }, type: "tool_call" }] })] },
      "model_request",
    );
    const out = await b.agent.invoke(null as never, cfg(thread));
    expect((out.messages.at(-1) as BaseMessage).text).toMatch(/done: result for x/);
    const { mine, fresh } = await oracleTurn(backend, b, thread, "and then?");
    expect(refusals(b)).toEqual([]);
    expect(mine).toEqual(fresh);
  });

  it("a fork from an old checkpoint, both branches continued: each branch sees only its own past", async () => {
    const b = build(backend);
    const thread = `fork-${backend}-${++threadNo}`;
    for (const t of ["My name is Mina and I live in Seoul.", "TOOLS lookup,lookup"]) await say(b, thread, t);
    const oldId = await headId(b, thread);
    await busyThread(b, thread);
    await say(b, thread, "I moved to Daegu. (branch B)", oldId);
    const branchB = await headId(b, thread);
    for (const t of ["TOOLS lookup", "branch B goes on", "TOOLS lookup,lookup"]) await say(b, thread, t);
    for (const t of ["back on B", "TOOLS commanding"]) await say(b, thread, t, branchB);
    expect(JSON.stringify(requestShape(lastRequest(b.model)))).not.toMatch(/Coco/);
    const { mine, fresh, freshRefusals } = await oracleTurn(backend, b, thread, "Where do I live?");
    expect(refusals(b)).toEqual([]);
    expect(freshRefusals).toEqual([]);
    expect(mine).toEqual(fresh);
  });

  it("getStateHistory: every checkpoint replayed (invoke(null) mid-run, a new message at a turn end): every request accepted", async () => {
    const b = build(backend);
    const thread = `replay-${backend}-${++threadNo}`;
    for (const t of ["I live in Seoul.", "TOOLS lookup,asking", "TOOLS failing,commanding", "done?"]) {
      const out = await say(b, thread, t);
      if ((out as { __interrupt__?: unknown[] }).__interrupt__?.length) await b.agent.invoke(new Command({ resume: "yes" }), cfg(thread));
    }
    const history = [];
    for await (const s of b.agent.graph.getStateHistory(cfg(thread))) history.push(s);
    let replayed = 0;
    for (const s of history) {
      const id = s.config.configurable?.checkpoint_id as string;
      try {
        if (s.next.length > 0) await b.agent.invoke(null as never, cfg(thread, id));
        else await say(b, thread, "replayed", id);
        replayed += 1;
      } catch (error) {
        // an interrupt replay with no resume is fine; anything else is a defect
        throw new Error(`replay of ${id} (next ${s.next.join(",")}) failed: ${String(error)}`);
      }
    }
    expect(replayed).toBe(history.length);
    expect(refusals(b)).toEqual([]);
  });

  it("interrupt in one of two parallel tools, resumed: the other result kept, every request accepted", async () => {
    const b = build(backend);
    const thread = `interrupt-${backend}-${++threadNo}`;
    await say(b, thread, "hi");
    const paused = await say(b, thread, "TOOLS lookup,asking,commanding");
    expect((paused as { __interrupt__?: unknown[] }).__interrupt__).toHaveLength(1);
    const out = await b.agent.invoke(new Command({ resume: "yes" }), cfg(thread));
    const tools = out.messages.filter((m: BaseMessage) => m.getType() === "tool").map((m: BaseMessage) => m.text);
    expect(tools).toEqual(["result for 1.0", "approved 1.1: yes", "command result for 1.2"]);
    const { mine, fresh } = await oracleTurn(backend, b, thread, "and?");
    expect(refusals(b)).toEqual([]);
    expect(mine).toEqual(fresh);
  });

  it("multimodal messages (image URL, base64 image, base64 file): counted as media, not as their base64 text", async () => {
    // A PDF of unknown pages costs one page (3000 tokens): the cap leaves room for it and the earlier turns.
    const b = build(backend, { maxHistoryTokens: 8000 });
    const thread = `media-${backend}-${++threadNo}`;
    await say(b, thread, "My name is Mina.");
    await say(b, thread, "I live in Seoul.");
    const bigBase64 = PNG_BASE64.repeat(2000); // ~190 KB of base64: ~50k tokens if counted as text
    await b.agent.invoke(
      {
        messages: [
          new HumanMessage({
            content: [
              { type: "text", text: "What is in these?" },
              { type: "image_url", image_url: { url: `data:image/png;base64,${bigBase64}` } },
              { type: "image", source_type: "base64", mime_type: "image/png", data: bigBase64 },
              { type: "file", source_type: "base64", mime_type: "application/pdf", data: bigBase64 },
            ],
          }),
        ],
      },
      cfg(thread),
    );
    const sent = requestShape(lastRequest(b.model));
    // The earlier turns fit the 8000-token cap beside three media blocks (765 + 1 + 3000 tokens by the media rules).
    expect(sent.some((s) => s.includes("I live in Seoul."))).toBe(true);
    const { mine, fresh } = await oracleTurn(backend, b, thread, "and the second one?");
    expect(refusals(b)).toEqual([]);
    expect(mine).toEqual(fresh);
  });

  it("a single user message bigger than the cap and the window: it is sent, whole, and the thread goes on", async () => {
    const b = build(backend);
    const thread = `long-${backend}-${++threadNo}`;
    await say(b, thread, "hello");
    const long = "부산 Busan 여행 계획과 travel plans. ".repeat(3000);
    await say(b, thread, long);
    const sent = lastRequest(b.model);
    expect(sent.at(-1)?.text).toBe(long);
    await say(b, thread, "short again");
    const { mine, fresh } = await oracleTurn(backend, b, thread, "and?");
    expect(refusals(b)).toEqual([]);
    expect(mine).toEqual(fresh);
  });

  // langchain-ai/langchain#35081: OpenAI answers an empty user message; Anthropic, Gemini and
  // Bedrock refuse it. Before the view left older ones out, every later request of a thread that
  // went on with another provider was refused (`empty_content`).
  it("empty user messages an OpenAI model answered, the thread continued by a strict model: every provider accepts every later request", async () => {
    const thread = `empty-user-${backend}-${++threadNo}`;
    const stack = stackOf(backend, { windowSize: 30, summarizeThreshold: 40, maxHistoryTokens: 8000 });
    const openai = scriptedModel((messages) => `openai: ${messageText(messages.at(-1) as BaseMessage) || "(empty)"}`, { strict: false });
    const first = createAgent({ model: openai, tools: TOOLS, checkpointer: stack.checkpointer, middleware: stack.middleware });
    const picture = { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_BASE64}` } };
    const contents: unknown[] = ["안녕하세요", "", [], [{ type: "text", text: " " }], [{ type: "text", text: "" }, picture], "  \u3000"];
    for (const content of contents) await first.invoke({ messages: [new HumanMessage({ content: content as never })] }, cfg(thread));
    const strict = agentModel();
    const next = createAgent({ model: strict, tools: TOOLS, checkpointer: stack.checkpointer, middleware: stack.middleware });
    for (const t of ["What did I send?", "TOOLS lookup", "고마워요"]) await next.invoke({ messages: [human(t)] }, cfg(thread));
    expect(strict.providerLog.requests).toBeGreaterThan(3);
    expect(strict.providerLog.rejected.map((r) => r.violations.map((v) => `${v.provider}:${v.rule}@${v.index}`))).toEqual([]);
    // The stored thread keeps every message as sent.
    const stored = (await next.graph.getState(cfg(thread))).values.messages as BaseMessage[];
    expect(stored.filter((m) => m.getType() === "human").map((m) => m.content)).toEqual([
      ...contents,
      "What did I send?",
      "TOOLS lookup",
      "고마워요",
    ]);
  });

  // Public reports: continuedev/continue#10416, openclaw/openclaw#7107, farion1231/cc-switch#1181
  // (a thread begun on Kimi K2 or Gemini, continued on Claude: `tool_use.id: String should match
  // pattern '^[a-zA-Z0-9_-]+$'`). Before portable call ids every request of the fallback model
  // after the first tool call was refused by Anthropic and Bedrock.
  it("a thread whose calls a Kimi-style model made (`functions.lookup:0`), continued by a fallback model: every provider accepts every request", async () => {
    const thread = `kimi-${backend}-${++threadNo}`;
    let n = 0;
    // OpenAI-compatible primary: accepts its own ids, fails after the first turns (a provider outage).
    const kimi = scriptedModel(
      (messages) => {
        n += 1;
        if (n > 4) return new Error("503 upstream overloaded");
        const last = messages.at(-1) as BaseMessage;
        if (last.getType() === "tool") return `done: ${messageText(last)}`;
        return new AIMessage({
          content: "",
          tool_calls: [0, 1].map((k) => ({
            id: `functions.lookup:${n * 2 + k}`,
            name: "lookup",
            args: { q: `k${n}.${k}` },
            type: "tool_call" as const,
          })),
        });
      },
      { strict: false },
    );
    // A window that keeps the Kimi turns in view.
    const stack = stackOf(backend, { windowSize: 30, summarizeThreshold: 40, maxHistoryTokens: 8000 });
    const fallback = agentModel();
    const middleware: AgentMiddleware[] = [...stack.middleware, modelFallbackMiddleware(fallback)];
    const agent = createAgent({ model: kimi, tools: TOOLS, checkpointer: stack.checkpointer, middleware });
    for (const t of ["Seat 12A tomorrow?", "내일 12B 좌석은요?", "TOOLS lookup,commanding", "and the window seat?", "thanks"])
      await agent.invoke({ messages: [human(t)] }, cfg(thread));
    const stored = (await agent.graph.getState(cfg(thread))).values.messages as BaseMessage[];
    expect(stored.some((m) => m.getType() === "tool" && (m as ToolMessage).tool_call_id.startsWith("functions.lookup:"))).toBe(true);
    expect(fallback.providerLog.requests).toBeGreaterThan(2);
    expect(fallback.providerLog.rejected.map((r) => r.violations.map((v) => `${v.provider}:${v.rule}`))).toEqual([]);
  });
});
