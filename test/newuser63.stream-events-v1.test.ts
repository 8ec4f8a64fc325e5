import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
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
describe("newuser63: streamEvents v1 on a graph with threadwise nodes", () => {
  const input = { messages: [new HumanMessage("I live in Busan.")] };

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
