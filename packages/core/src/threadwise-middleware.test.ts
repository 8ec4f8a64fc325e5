import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { PROVIDERS, scriptedModel } from "./testing/index.js";
import { threadwiseMiddleware } from "./threadwise-middleware.js";
import { isAssembledRequest, withSystemSuffix, withViewDecisions } from "./view-request.js";

/** A stored thread with an AI tool call that never got its result, a stray result and a stored system message. */
const stored = () => [
  new SystemMessage({ id: "s1", content: "Stored rules." }),
  new HumanMessage({ id: "h1", content: "Check seat 12A." }),
  new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "call_1", name: "lookup", args: { q: "12A" } }] }),
  new HumanMessage({ id: "h2", content: "Never mind." }),
  new ToolMessage({ id: "t9", content: "stray", tool_call_id: "call_9" }),
  new AIMessage({ id: "a2", content: "Okay." }),
];

describe("threadwiseMiddleware", () => {
  it("a middleware without wrapModelCall hands the model an assembled request: no orphan, one leading system message", async () => {
    const model = scriptedModel(() => "ok", { onViolation: "record", providers: PROVIDERS });
    const agent = createAgent({
      model,
      systemPrompt: "Be terse.",
      checkpointer: new MemorySaver(),
      middleware: [threadwiseMiddleware({ name: "test/no-decisions", afterAgent: () => undefined })],
    });
    await agent.invoke(
      { messages: [...stored(), new HumanMessage({ id: "h3", content: "Hi again." })] },
      { configurable: { thread_id: "tm1" } },
    );
    const sent = model.calls[0]?.messages ?? [];
    expect(sent.map((m) => [m.type, m.id ?? ""])).toEqual([
      ["system", ""],
      ["human", "h2"],
      ["ai", "a2"],
      ["human", "h3"],
    ]);
    // h1 and h2 (the unanswered call between them left out) become one user turn, with h2's id.
    expect(sent[1]?.content).toBe("Check seat 12A.\n\nNever mind.");
    expect((sent[0] as SystemMessage).text).toBe("Be terse.\n\nStored rules.");
    expect(model.providerLog.rejected).toEqual([]);
  });

  it("an early pass-through of an unassembled request is assembled; an assembled one is handed on as is", async () => {
    const seen: boolean[] = [];
    const passes: unknown[] = [];
    const model = scriptedModel(() => "ok", { onViolation: "record", providers: PROVIDERS });
    const agent = createAgent({
      model,
      checkpointer: new MemorySaver(),
      middleware: [
        threadwiseMiddleware({ name: "test/pass", wrapModelCall: (request, handler) => handler(request) }),
        threadwiseMiddleware({
          name: "test/suffix",
          wrapModelCall: (request, handler) => {
            seen.push(isAssembledRequest(request));
            const next = withSystemSuffix(request, "Note.");
            passes.push(next);
            return handler(next);
          },
        }),
        threadwiseMiddleware({
          name: "test/inner",
          wrapModelCall: (request, handler) => {
            passes.push(request);
            return handler(request);
          },
        }),
      ],
    });
    await agent.invoke({ messages: stored() }, { configurable: { thread_id: "tm2" } });
    expect(seen).toEqual([true]);
    // The inner layer received the very request the suffix layer rendered: no re-assembly.
    expect((passes[1] as { messages: unknown }).messages).toBe((passes[0] as { messages: unknown }).messages);
    expect(model.providerLog.rejected).toEqual([]);
  });

  it("a system message copied between layers with its content (LangChain's agent does) is taken as assembled without reading its text", () => {
    // A text block that counts how often its text is read: a system message with the summary in it is kilobytes.
    let reads = 0;
    const block = {
      type: "text",
      get text() {
        reads += 1;
        return "Be terse.";
      },
    };
    const system = new SystemMessage({ content: [block] });
    const request = { messages: [new HumanMessage({ id: "h1", content: "Hi." })], systemMessage: system };
    const rendered = withViewDecisions(request, [{ kind: "startOn", producer: "test/rule", startOn: "any" }]);
    expect(rendered.systemMessage).toBe(system);
    // What AgentNode hands the next layer when a layer changed the system message: a copy sharing its content.
    const copied = { ...rendered, systemMessage: new SystemMessage({ ...rendered.systemMessage }) };
    expect(copied.systemMessage.content).toBe(system.content);
    reads = 0;
    expect(isAssembledRequest(copied)).toBe(true);
    expect(reads).toBe(0);
    // A copy with other content still reads (and compares) the text.
    const other = { ...rendered, systemMessage: new SystemMessage({ content: [{ type: "text", text: "Be terse." }] }) };
    expect(isAssembledRequest(other)).toBe(true);
    expect(reads).toBeGreaterThan(0);
  });
});
