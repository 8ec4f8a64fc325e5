import { HumanMessage } from "@langchain/core/messages";
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { hideMemoryState, ThreadwiseConfigError } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { summarize } from "@threadwise/summarize";
import { windowTrim } from "@threadwise/window-trim";
import { workMemory } from "@threadwise/work-memory";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";

// v1stream65: `agent.streamEvents(input, { version: "v1" })` hung (no event after the first
// threadwise node's start, no error) on any createAgent with a threadwise middleware that adds a
// graph node (`threadwise/<x>.<hook>`) when the agent was NOT wrapped in hideMemoryState: LangChain
// core builds v1 events from its log stream, whose paths split run names on "/", its reader fails on
// such an entry and the run then waits forever on the handler's next write. Every threadwise node
// hook now checks the run's v1 log handler first and throws ThreadwiseConfigError
// (`streamEvents.version`), so the stream ends with it. A hang is turned into a failure by a race
// with a 10 s timer (the stack's run takes well under a second).

const HANG = Symbol("hang");

/** Reads `stream` to its end: its events and the error it ended with, or HANG when it was still open after 10 s. */
async function readOrHang(stream: AsyncIterable<{ event: string; name: string }>) {
  const events: Array<{ event: string; name: string }> = [];
  const read = (async () => {
    try {
      for await (const event of stream) events.push({ event: event.event, name: event.name });
    } catch (error) {
      return error;
    }
    return undefined;
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<typeof HANG>((resolve) => {
    timer = setTimeout(() => resolve(HANG), 10_000);
  });
  const ended = await Promise.race([read, hang]);
  clearTimeout(timer);
  return { ended, events };
}

const LANGUAGES = [
  ["en", "I live in Busan. Please remember it."],
  ["ko", "저는 부산에 살아요. 기억해 주세요."],
] as const;

/** Middleware lists with a threadwise node, and the node's name. */
const WITH_NODE = [
  [
    "summarize (structuredResponse: its afterModel node)",
    () => ({ middleware: [summarize({ structuredResponse: true })] }),
    "threadwise/summarize.after_model",
  ],
  ["workMemory (its beforeAgent node)", () => ({ middleware: [workMemory({ logger: false })] }), "threadwise/work-memory.before_agent"],
  ["memoryStack (the memory package's turn admission node)", () => memoryStack({ env: {} }), "threadwise/turn-admission.before_agent"],
] as const;

type Agent = ReturnType<typeof createAgent>;
const agentWith = (parts: object): Agent =>
  createAgent({ model: scriptedModel(() => "Noted."), tools: [], checkpointer: new MemorySaver(), ...parts }) as unknown as Agent;

const withFunctionNode = (agent: Agent) =>
  new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state, config) => agent.invoke({ messages: state.messages }, config))
    .addEdge(START, "agent")
    .addEdge("agent", END)
    .compile({ checkpointer: new MemorySaver() });
const withSubgraph = (agent: Agent) =>
  new StateGraph(MessagesAnnotation)
    .addNode("agent", agent.graph as never)
    .addEdge(START, "agent")
    .addEdge("agent", END)
    .compile({ checkpointer: new MemorySaver() });

const PLACEMENTS = [
  ["the agent itself", (agent: Agent) => agent],
  ["a parent's function node", withFunctionNode],
  ["a parent's subgraph node", withSubgraph],
] as const;

const typedError = (ended: unknown) => (ended === HANG ? undefined : ThreadwiseConfigError.find(ended));

describe("v1stream65: streamEvents v1 on an agent with threadwise middleware, not wrapped in hideMemoryState", () => {
  for (const [what, parts, node] of WITH_NODE) {
    for (const [where, place] of PLACEMENTS) {
      for (const [language, text] of LANGUAGES) {
        it(`${what}, ${where}: the stream ends with ThreadwiseConfigError naming streamEvents.version, never hangs (${language})`, async () => {
          const graph = place(agentWith(parts()));
          const { ended } = await readOrHang(
            graph.streamEvents({ messages: [new HumanMessage(text)] }, { configurable: { thread_id: `v1-${language}` }, version: "v1" }),
          );
          expect(ended).not.toBe(HANG);

          const error = typedError(ended);
          expect(error?.option).toBe("streamEvents.version");
          expect(error?.message).toContain(node);
          expect(error?.message).toContain('"v2"');
        }, 20_000);
      }
    }
  }

  for (const [language, text] of LANGUAGES) {
    it(`memoryStack, the agent itself, v1 with includeNames: ['model_request'] (no threadwise node logged) streams that node's events to its end (${language})`, async () => {
      const agent = agentWith(memoryStack({ env: {} }));
      const { ended, events } = await readOrHang(
        agent.streamEvents(
          { messages: [new HumanMessage(text)] },
          { configurable: { thread_id: `v1-filtered-${language}` }, version: "v1" },
          { includeNames: ["model_request"] },
        ),
      );
      expect(ended).toBeUndefined();
      expect(events.map((event) => `${event.event}:${event.name}`)).toEqual(["on_chain_start:model_request", "on_chain_end:model_request"]);
    }, 20_000);

    it(`windowTrim only (no node of its own), the agent itself: v1 streams to its end (${language})`, async () => {
      const agent = agentWith({ middleware: [windowTrim()] });
      const { ended, events } = await readOrHang(
        agent.streamEvents({ messages: [new HumanMessage(text)] }, { configurable: { thread_id: `v1-window-${language}` }, version: "v1" }),
      );
      expect(ended).toBeUndefined();
      expect(events.at(-1)).toMatchObject({ event: "on_chain_end" });
    }, 20_000);

    it(`workMemory, wrapped in hideMemoryState: refused at the call as before (${language})`, () => {
      const agent = hideMemoryState(agentWith({ middleware: [workMemory({ logger: false })] }));
      expect(() =>
        agent.streamEvents({ messages: [new HumanMessage(text)] }, { configurable: { thread_id: "v1-hidden" }, version: "v1" }),
      ).toThrow(ThreadwiseConfigError);
    });

    it(`memoryStack, streamLog (its own format, not v1's reader) on the unwrapped agent is not refused and ends, the turn admission entry logged under its full name (${language})`, async () => {
      const agent = agentWith(memoryStack({ env: {} }));
      const paths: string[] = [];
      const read = (async () => {
        try {
          for await (const patch of agent.graph.streamLog(
            { messages: [new HumanMessage(text)] },
            { configurable: { thread_id: `log-${language}` } },
          ))
            for (const op of patch.ops) paths.push(op.path);
        } catch (error) {
          return error;
        }
        return undefined;
      })();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const ended = await Promise.race([read, new Promise<typeof HANG>((resolve) => (timer = setTimeout(() => resolve(HANG), 10_000)))]);
      clearTimeout(timer);
      expect(ended).toBeUndefined();
      expect(paths).toContain("/logs/threadwise/turn-admission.before_agent");
      expect(paths).toContain("/final_output");
    }, 20_000);

    it(`memoryStack, v2 on the unwrapped agent streams to its end, the turn admission run among the events (${language})`, async () => {
      const agent = agentWith(memoryStack({ env: {} }));
      const { ended, events } = await readOrHang(
        agent.streamEvents({ messages: [new HumanMessage(text)] }, { configurable: { thread_id: `v2-${language}` }, version: "v2" }),
      );
      expect(ended).toBeUndefined();
      expect(events.some((event) => event.name === "threadwise/turn-admission.before_agent")).toBe(true);
    }, 20_000);
  }
});
