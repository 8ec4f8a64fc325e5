import { HumanMessage } from "@langchain/core/messages";
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { hideMemoryState, ThreadwiseConfigError } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { windowTrim } from "@threadwise/window-trim";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";

// newuser63: `agent.streamEvents(input, { version: "v1" })` on `memoryStack()` never ended (no event
// after `__start__`, no error): LangChain core's v1 events are built from its log stream, whose
// JSON-patch paths are `/logs/<run name>` split on "/", and threadwise's node names
// (`threadwise/turn-admission.before_agent`) hold one. hideMemoryState refuses v1 at the call,
// naming the option, on a graph with such a node; v2 and v3 stream as before.
const input = { messages: [new HumanMessage("I live in Busan.")] };

describe("newuser63: streamEvents v1 on a graph with threadwise nodes", () => {
  it("is refused at the call with ThreadwiseConfigError naming streamEvents.version (was: a stream that never ended)", () => {
    const agent = hideMemoryState(createAgent({ model: scriptedModel(() => "Noted."), tools: [], ...memoryStack({ env: {} }) }));
    const config = { configurable: { thread_id: "v1" }, version: "v1" as const };
    let thrown: unknown;
    try {
      agent.streamEvents(input, config);
    } catch (error) {
      thrown = error;
    }
    expect(ThreadwiseConfigError.isInstance(thrown)).toBe(true);
    expect((thrown as ThreadwiseConfigError).option).toBe("streamEvents.version");
    expect((thrown as Error).message).toContain("threadwise/turn-admission.before_agent");
    expect((thrown as Error).message).toContain('"v2"');
  });

  it("v2 on the same stack streams to its end, the graph's end event last", async () => {
    const agent = hideMemoryState(createAgent({ model: scriptedModel(() => "Noted."), tools: [], ...memoryStack({ env: {} }) }));
    const events: Array<{ event: string; name: string }> = [];
    for await (const event of agent.streamEvents(input, { configurable: { thread_id: "v2" }, version: "v2" })) events.push(event);
    expect(events.at(-1)).toMatchObject({ event: "on_chain_end", name: "LangGraph" });
  });

  it("v1 on a graph whose threadwise middlewares add no node (windowTrim only) is left to LangChain and streams to its end", async () => {
    const agent = hideMemoryState(
      createAgent({ model: scriptedModel(() => "Noted."), tools: [], checkpointer: new MemorySaver(), middleware: [windowTrim()] }),
    );
    const events: Array<{ event: string; name: string }> = [];
    for await (const event of agent.streamEvents(input, { configurable: { thread_id: "v1-plain" }, version: "v1" })) events.push(event);
    expect(events.at(-1)).toMatchObject({ event: "on_chain_end", name: "LangGraph" });
  });
});

// breaker64: the check above read only the top-level node names, so a parent graph with the agent
// added as a node (`addNode("agent", agent.graph)`) passed it and its v1 stream never ended (the
// agent's nodes run inside the parent's runs and reach the same log stream). The check now walks
// the nested graphs LangGraph finds (`getSubgraphs`, recursively) and names them `parent|node`.
describe("breaker64: streamEvents v1 on a parent graph with the stack's agent as a node", () => {
  const parentOf = (agentGraph: unknown) =>
    new StateGraph(MessagesAnnotation)
      .addNode("agent", agentGraph as never)
      .addEdge(START, "agent")
      .addEdge("agent", END)
      .compile({ checkpointer: new MemorySaver() });

  for (const [language, text] of [
    ["en", "I live in Busan."],
    ["ko", "저는 부산에 살아요."],
  ] as const) {
    it(`is refused at the call, naming the nested node agent|threadwise/turn-admission.before_agent (${language})`, () => {
      const agent = hideMemoryState(createAgent({ model: scriptedModel(() => "Noted."), tools: [], ...memoryStack({ env: {} }) }));
      const parent = hideMemoryState(parentOf(agent.graph));
      let thrown: unknown;
      try {
        parent.streamEvents({ messages: [new HumanMessage(text)] }, { configurable: { thread_id: `nested-${language}` }, version: "v1" });
      } catch (error) {
        thrown = error;
      }
      expect(ThreadwiseConfigError.isInstance(thrown)).toBe(true);
      expect((thrown as ThreadwiseConfigError).option).toBe("streamEvents.version");
      expect((thrown as Error).message).toContain("agent|threadwise/turn-admission.before_agent");
    });
  }

  it("two levels down (the parent itself a node of a grandparent) is refused too", () => {
    const agent = createAgent({ model: scriptedModel(() => "Noted."), tools: [], ...memoryStack({ env: {} }) });
    const grandparent = hideMemoryState(
      new StateGraph(MessagesAnnotation)
        .addNode("outer", parentOf(agent.graph) as never)
        .addEdge(START, "outer")
        .addEdge("outer", END)
        .compile(),
    );
    expect(() => grandparent.streamEvents(input, { configurable: { thread_id: "nested-2" }, version: "v1" })).toThrow(
      "outer|agent|threadwise/turn-admission.before_agent",
    );
  });

  it("a parent whose nested agent has no threadwise node (windowTrim only) is left to LangChain and v1 streams to its end", async () => {
    const agent = createAgent({ model: scriptedModel(() => "Noted."), tools: [], middleware: [windowTrim()] });
    const parent = hideMemoryState(parentOf(agent.graph));
    const events: Array<{ event: string; name: string }> = [];
    for await (const event of parent.streamEvents(input, { configurable: { thread_id: "nested-plain" }, version: "v1" }))
      events.push(event);
    expect(events.at(-1)).toMatchObject({ event: "on_chain_end", name: "LangGraph" });
    expect(events.some((event) => event.event === "on_chain_start" && event.name === "model_request")).toBe(true);
  });
});

// breaker65: the check above reads the graph streamEvents is called on, so an agent invoked from
// inside a parent's function node (`addNode("agent", (state, config) => agent.invoke(state, config))`),
// or a nested agent under a parent without its own hideMemoryState call, still hung v1 (no event
// after the agent's start, no error). The agent's own `stream` (which `invoke` calls) now finds the
// v1 log handler in the callbacks it is run with and throws, so the parent's stream ends with the
// typed error; a v1 call whose filters leave the agent's slashed nodes out streams as before.
describe("breaker65: streamEvents v1 of a parent that runs the stack's agent from a node", () => {
  const stackAgent = () => hideMemoryState(createAgent({ model: scriptedModel(() => "Noted."), tools: [], ...memoryStack({ env: {} }) }));
  const withFunctionNode = (agent: ReturnType<typeof stackAgent>) =>
    new StateGraph(MessagesAnnotation)
      .addNode("agent", async (state, config) => agent.invoke({ messages: state.messages }, config))
      .addEdge(START, "agent")
      .addEdge("agent", END)
      .compile({ checkpointer: new MemorySaver() });
  const withSubgraph = (agent: ReturnType<typeof stackAgent>) =>
    new StateGraph(MessagesAnnotation)
      .addNode("agent", agent.graph as never)
      .addEdge(START, "agent")
      .addEdge("agent", END)
      .compile({ checkpointer: new MemorySaver() });
  /** Reads `stream` to its end; the error it ended with, if any. */
  const errorOf = async (stream: AsyncIterable<unknown>): Promise<unknown> => {
    try {
      for await (const _ of stream);
    } catch (error) {
      return error;
    }
    return undefined;
  };
  const parents = [
    ["a function node, the parent wrapped too", (agent: ReturnType<typeof stackAgent>) => hideMemoryState(withFunctionNode(agent))],
    ["a function node, the parent not wrapped", withFunctionNode],
    ["the agent's graph as a node, the parent not wrapped", withSubgraph],
  ] as const;

  for (const [where, parentOf] of parents) {
    for (const [language, text] of [
      ["en", "I live in Busan."],
      ["ko", "저는 부산에 살아요."],
    ] as const) {
      it(`${where}: the stream ends with ThreadwiseConfigError naming streamEvents.version (${language})`, async () => {
        const parent = parentOf(stackAgent());
        const thrown = await errorOf(
          parent.streamEvents({ messages: [new HumanMessage(text)] }, { configurable: { thread_id: `fn-${language}` }, version: "v1" }),
        );
        expect(ThreadwiseConfigError.isInstance(thrown)).toBe(true);
        expect((thrown as ThreadwiseConfigError).option).toBe("streamEvents.version");
        expect((thrown as Error).message).toContain("threadwise/turn-admission.before_agent");
        expect((thrown as Error).message).toContain('"v2"');
      });
    }
  }

  it("a function node, v1 with includeNames: ['model_request'] (the slashed nodes not logged) streams that node's events to its end", async () => {
    const parent = withFunctionNode(stackAgent());
    const events: Array<{ event: string; name: string }> = [];
    for await (const event of parent.streamEvents(
      input,
      { configurable: { thread_id: "fn-filtered" }, version: "v1" },
      { includeNames: ["model_request"] },
    ))
      events.push(event);
    expect(events.map((event) => `${event.event}:${event.name}`)).toEqual(["on_chain_start:model_request", "on_chain_end:model_request"]);
  });

  it("a function node, v2: streams to its end, the agent's turn admission run among the events", async () => {
    const parent = withFunctionNode(stackAgent());
    const events: Array<{ event: string; name: string }> = [];
    for await (const event of parent.streamEvents(input, { configurable: { thread_id: "fn-v2" }, version: "v2" })) events.push(event);
    expect(events.at(-1)).toMatchObject({ event: "on_chain_end", name: "LangGraph" });
    expect(events.some((event) => event.name === "threadwise/turn-admission.before_agent")).toBe(true);
  });
});
