import { AIMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent, createMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { systemContextBlocksOf } from "./cache-breakpoints.js";
import { isContextMessage } from "./message-kinds.js";
import { type PromptContextMode, STABLE_TAIL_HEADER } from "./placement.js";
import { scriptedModel } from "./testing/index.js";
import { addContextBlocks, viewMessages, withSystemSuffix, withViewMessages } from "./view-request.js";

function blockMiddleware(name: string, kind: string, label: string, text: (turn: number) => string, mode?: PromptContextMode) {
  let turn = 0;
  return createMiddleware({
    name,
    wrapModelCall: (request, handler) => {
      turn += 1;
      return handler(addContextBlocks(request, [{ kind, producer: name, label, text: text(turn) }], { mode }));
    },
  });
}

describe("placement through createAgent", () => {
  it("legacy_system appends sorted blocks to a string system prompt; the stored thread has none", async () => {
    const model = scriptedModel(() => "ok");
    const checkpointer = new MemorySaver();
    const agent = createAgent({
      model,
      systemPrompt: "You are terse.",
      checkpointer,
      middleware: [
        blockMiddleware("user/rag", "knowledge", "Retrieved documents", (t) => `doc ${t}`, "legacy_system"),
        blockMiddleware("threadwise/summarize", "summary", "Previous conversation summary", (t) => `summary ${t}`),
      ],
    });
    const config = { configurable: { thread_id: "t1" } };
    await agent.invoke({ messages: [new HumanMessage("hi")] }, config);
    const state = await agent.invoke({ messages: [new HumanMessage("again")] }, config);
    const sent = model.calls[1]?.messages ?? [];
    expect(sent[0]).toBeInstanceOf(SystemMessage);
    expect((sent[0] as SystemMessage).text).toBe(
      "You are terse.\n\n[Previous conversation summary]\nsummary 2\n\n[Retrieved documents]\ndoc 2",
    );
    expect(sent.slice(1).map((m) => m.content)).toEqual(["hi", "ok", "again"]);
    expect(state.messages.map((m) => m.content)).toEqual(["hi", "ok", "again", "ok"]);
  });

  it("stable_tail puts the context as one more text block on the newest user message and keeps the system prompt", async () => {
    const model = scriptedModel(() => "ok");
    const agent = createAgent({
      model,
      systemPrompt: new SystemMessage({ content: [{ type: "text", text: "Operator prompt.", cache_control: { type: "ephemeral" } }] }),
      checkpointer: new MemorySaver(),
      middleware: [blockMiddleware("threadwise/fact-recall", "facts", "Facts about the user", (t) => `fact ${t}`, "stable_tail")],
    });
    const config = { configurable: { thread_id: "t2" } };
    await agent.invoke({ messages: [new HumanMessage("hi")] }, config);
    const state = await agent.invoke({ messages: [new HumanMessage("again")] }, config);
    const [first, second] = model.calls;
    expect(first?.messages[0]?.content).toEqual([{ type: "text", text: "Operator prompt.", cache_control: { type: "ephemeral" } }]);
    expect(second?.messages[0]?.content).toEqual(first?.messages[0]?.content);
    const tail = second?.messages.slice(1) ?? [];
    // One user turn, not two in a row: Bedrock Converse and Gemini require alternating roles.
    expect(tail.map((m) => m.content)).toEqual([
      "hi",
      "ok",
      [
        { type: "text", text: "again" },
        { type: "text", text: `\n\n${STABLE_TAIL_HEADER}\n\n[Facts about the user]\nfact 2` },
      ],
    ]);
    expect(tail.some((m) => isContextMessage(m))).toBe(false);
    expect(state.messages.some((m) => isContextMessage(m))).toBe(false);
  });
});

describe("cache_aware placement (spec R36)", () => {
  it("puts the summary at the end of the system prompt and the facts after the newest user message; stores neither", async () => {
    const model = scriptedModel(() => "ok");
    const agent = createAgent({
      model,
      systemPrompt: "Operator prompt.",
      checkpointer: new MemorySaver(),
      middleware: [
        // The summary changes once in three turns here, the facts on every turn.
        blockMiddleware(
          "threadwise/summarize",
          "summary",
          "Previous conversation summary",
          (t) => `summary ${Math.ceil(t / 3)}`,
          "cache_aware",
        ),
        blockMiddleware("threadwise/fact-recall", "facts", "Facts about the user", (t) => `fact ${t}`),
      ],
    });
    const config = { configurable: { thread_id: "t3" } };
    let state = await agent.invoke({ messages: [new HumanMessage("hi")] }, config);
    state = await agent.invoke({ messages: [new HumanMessage("again")] }, config);
    const [first, second] = model.calls;
    expect((second?.messages[0] as SystemMessage | undefined)?.text).toBe("Operator prompt.\n\n[Previous conversation summary]\nsummary 1");
    // Same summary: the system prompt is byte-identical from call to call.
    expect(second?.messages[0]?.content).toEqual(first?.messages[0]?.content);
    expect(second?.messages.slice(1).map((m) => m.content)).toEqual([
      "hi",
      "ok",
      [
        { type: "text", text: "again" },
        { type: "text", text: `\n\n${STABLE_TAIL_HEADER}\n\n[Facts about the user]\nfact 2` },
      ],
    ]);
    expect(state.messages.map((m) => m.content)).toEqual(["hi", "ok", "again", "ok"]);
    expect(state.messages.some((m) => isContextMessage(m))).toBe(false);
  });

  it("with only per-message blocks it renders exactly what stable_tail renders", () => {
    const base = { messages: [new HumanMessage({ content: "q", id: "h1" })], systemMessage: new SystemMessage("S") };
    const facts = [{ kind: "facts", producer: "p", label: "F", text: "x" }];
    const aware = addContextBlocks(base, facts, { mode: "cache_aware" });
    const tail = addContextBlocks(base, facts, { mode: "stable_tail" });
    expect(aware.systemMessage.content).toBe("S");
    expect(aware.messages.map((m) => [m.id, m.content])).toEqual(tail.messages.map((m) => [m.id, m.content]));
    expect(systemContextBlocksOf(aware)).toEqual([]);
    const withSummary = addContextBlocks(aware, [{ kind: "summary", producer: "s", label: "Summary", text: "s" }]);
    expect(systemContextBlocksOf(withSummary).map((b) => b.kind)).toEqual(["summary"]);
    expect(withSummary.systemMessage.content).toBe("S\n\n[Summary]\ns");
  });
});

describe("placement helpers", () => {
  const request = () => ({
    messages: [new HumanMessage({ content: "q", id: "h1" }), new AIMessage({ content: "a", id: "a1" })],
    systemMessage: new SystemMessage("S"),
  });

  it("re-renders blocks when the view changes after they were added", () => {
    const withBlock = addContextBlocks(request(), [{ kind: "facts", producer: "p", label: "F", text: "x" }], { mode: "stable_tail" });
    expect(withBlock.messages.map((m) => m.id)).toEqual(["h1", "a1"]);
    expect(withBlock.messages[0]?.content).toEqual([
      { type: "text", text: "q" },
      { type: "text", text: `\n\n${STABLE_TAIL_HEADER}\n\n[F]\nx` },
    ]);
    expect(viewMessages(withBlock).map((m) => m.content)).toEqual(["q", "a"]);
    const trimmed = withViewMessages(withBlock, [viewMessages(withBlock)[0] as HumanMessage, new HumanMessage({ id: "h2", content: "r" })]);
    expect(trimmed.messages.map((m) => m.id)).toEqual(["h2"]);
    expect(trimmed.messages[0]?.content).toEqual([
      { type: "text", text: "q\n\nr" },
      { type: "text", text: `\n\n${STABLE_TAIL_HEADER}\n\n[F]\nx` },
    ]);
  });

  it("puts a system suffix before rendered blocks in legacy_system", () => {
    const withBlock = addContextBlocks(request(), [{ kind: "summary", producer: "p", label: "Summary", text: "s" }], {
      mode: "legacy_system",
    });
    const withNote = withSystemSuffix(withBlock, "NOTE");
    expect(withNote.systemMessage.content).toBe("S\n\nNOTE\n\n[Summary]\ns");
  });

  it("renders the same bytes whatever order blocks are added in", () => {
    const a = { kind: "knowledge", producer: "z", label: "K", text: "k" };
    const b = { kind: "summary", producer: "y", label: "S", text: "s" };
    const c = { kind: "facts", producer: "x", label: "F", text: "f" };
    const one = addContextBlocks(addContextBlocks(request(), [a, b], { mode: "legacy_system" }), [c]);
    const two = addContextBlocks(addContextBlocks(request(), [c], { mode: "legacy_system" }), [b, a]);
    expect(one.systemMessage.content).toBe(two.systemMessage.content);
    expect(one.systemMessage.content).toBe("S\n\n[S]\ns\n\n[F]\nf\n\n[K]\nk");
  });
});
