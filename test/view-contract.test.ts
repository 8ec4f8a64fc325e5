/**
 * The view contract (spec R33, issue 12) through `createAgent` over several checkpointed turns:
 * windowTrim and summarize compose in either order (summary coverage + view = the whole stored
 * thread, no gap, no double coverage), `startOn` set once holds through tokenCap's cut, a stored
 * SystemMessage is merged into the one leading system message, and LangChain's
 * humanInTheLoopMiddleware (reject and edit) in the same list leaves no orphan. Every model call
 * goes through the strict provider check of `@threadwise/core/testing` (OpenAI, Anthropic,
 * Gemini, Bedrock rules).
 */
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { Command, MemorySaver } from "@langchain/langgraph";
import {
  addContextBlocks,
  findOrphans,
  groupMessages,
  messageText,
  readSummarySlot,
  ThreadwiseConfigError,
  type ThreadwiseLogger,
  threadMessages,
  viewDecisionsOf,
  viewMessages,
} from "@threadwise/core";
import { scriptedModel, withProviderCheck } from "@threadwise/core/testing";
import { factRecall } from "@threadwise/fact-recall";
import { historyAware } from "@threadwise/history-aware";
import { recall } from "@threadwise/recall";
import { summarize, transcriptLine } from "@threadwise/summarize";
import { tokenCap } from "@threadwise/token-cap";
import { windowTrim } from "@threadwise/window-trim";
import { workMemory } from "@threadwise/work-memory";
import { type AgentMiddleware, createAgent, createMiddleware, humanInTheLoopMiddleware, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";

const lookup = tool(async ({ q }: { q: string }) => `found ${q}`, {
  name: "lookup",
  description: "Looks something up.",
  schema: z.object({ q: z.string() }),
});
const book = tool(async ({ seat }: { seat: string }) => `booked ${seat}`, {
  name: "book",
  description: "Books a seat.",
  schema: z.object({ seat: z.string() }),
});

const TOOLS = [lookup, book];

/**
 * The agent's model: on turns divisible by 3 it first calls two tools in parallel, then answers.
 * Every request is checked against the four providers' rules (a refusal fails the call).
 */
function agentModel() {
  return withProviderCheck(
    scriptedModel((messages) => {
      const last = messages[messages.length - 1] as BaseMessage;
      const user = [...messages].reverse().find((m) => m.getType() === "human");
      const turn = Number(/turn (\d+)/.exec(messageText(user as BaseMessage))?.[1] ?? 0);
      if (last.getType() === "human" && turn % 3 === 0) {
        return new AIMessage({
          content: "",
          tool_calls: [
            { id: `l${turn}`, name: "lookup", args: { q: `q${turn}` }, type: "tool_call" },
            { id: `b${turn}`, name: "book", args: { seat: `${turn}A` }, type: "tool_call" },
          ],
        });
      }
      return `answer to turn ${turn}`;
    }),
  );
}

/** A fake summarizer that records the transcript lines it was asked to summarize. */
function recordingSummarizer() {
  const lines: string[] = [];
  const model = scriptedModel((messages) => {
    const input = messageText(messages[messages.length - 1] as BaseMessage);
    const span = /<new_messages>\n([\s\S]*?)\n<\/new_messages>/.exec(input)?.[1] ?? "";
    lines.push(...span.split("\n").filter((line) => line !== ""));
    return `summary #${lines.length}`;
  });
  return { model, lines };
}

interface CallRecord {
  /** The thread the stack received. */
  thread: BaseMessage[];
  /** Index of the first message the summary does not cover (0 without a summary). */
  coveredUpTo: number;
  /** Core's view of the final request (before role merging). */
  view: BaseMessage[];
  /** What the model received, system message first. */
  sent: BaseMessage[];
}

/** Innermost: records each request as core assembled it. */
function recorder(out: CallRecord[]): AgentMiddleware {
  return createMiddleware({
    name: "test/recorder",
    wrapModelCall: (request, handler) => {
      const thread = threadMessages(request);
      const first = viewDecisionsOf(request).coverage?.firstUncovered;
      const at = first ? thread.indexOf(first) : 0;
      out.push({
        thread,
        coveredUpTo: at === -1 ? 0 : at,
        view: viewMessages(request),
        sent: request.systemMessage.text === "" ? request.messages : [request.systemMessage, ...request.messages],
      });
      return handler(request);
    },
  }) as unknown as AgentMiddleware;
}

/** Non-orphan, non-system messages of a list. */
function sendable(messages: readonly BaseMessage[]): BaseMessage[] {
  return groupMessages(messages)
    .filter((g) => g.kind !== "orphan" && g.kind !== "system")
    .flatMap((g) => g.messages);
}

async function runTurns(stack: readonly AgentMiddleware[], turns: number, threadId: string) {
  const model = agentModel();
  const calls: CallRecord[] = [];
  const agent = createAgent({
    model,
    tools: TOOLS,
    systemPrompt: "You are a booking assistant.",
    checkpointer: new MemorySaver(),
    // One element type for the list: the stacks under test mix middleware with and without state.
    middleware: [...stack, recorder(calls)] as unknown as Array<ReturnType<typeof windowTrim>>,
  });
  const config = { configurable: { thread_id: threadId } };
  // A stored SystemMessage at the head, as users do instead of systemPrompt.
  await agent.invoke(
    { messages: [new SystemMessage({ id: "stored-rules", content: "Stored rules: be brief." }), new HumanMessage("turn 1")] },
    config,
  );
  for (let t = 2; t <= turns; t += 1) await agent.invoke({ messages: [new HumanMessage(`turn ${t}`)] }, config);
  const state = await agent.graph.getState(config);
  return { model, calls, state: state.values as { messages: BaseMessage[] } };
}

describe("a tool's Command adds a message next to its result in a parallel call (R4, R37)", () => {
  // ToolNode writes each call's output in call order: the first call's Command([result a, note])
  // stores [AI(a, b), result a, note, result b]. Before, pairing by position stopped at the note and
  // every view left call b and its result out, in the run itself too: the model never saw b's result.
  for (const Extra of [AIMessage, HumanMessage]) {
    it(`the other call's result is paired across the ${Extra.name}; it is sent after all the results; every provider accepts`, async () => {
      const noting = tool(
        async ({ q }: { q: string }, config: { toolCall?: { id?: string } }) =>
          new Command({
            update: {
              messages: [
                new ToolMessage({ content: `noted ${q}`, tool_call_id: config.toolCall?.id ?? "", name: "noting" }),
                new Extra({ content: `메모: ${q} was noted` }),
              ],
            },
          }),
        { name: "noting", description: "Notes a thing.", schema: z.object({ q: z.string() }) },
      );
      const requests: BaseMessage[][] = [];
      const model = withProviderCheck(
        scriptedModel((messages) => {
          requests.push(messages);
          if (requests.length === 1)
            return new AIMessage({
              content: "",
              tool_calls: [
                { id: "call_a", name: "noting", args: { q: "a" }, type: "tool_call" },
                { id: "call_b", name: "lookup", args: { q: "b" }, type: "tool_call" },
              ],
            });
          return `answer ${requests.length}`;
        }),
      );
      const agent = createAgent({
        model,
        tools: [noting, lookup],
        checkpointer: new MemorySaver(),
        middleware: [windowTrim({ maxMessages: 40, logger: false })],
      });
      const config = { configurable: { thread_id: `command-${Extra.name}` } };
      await agent.invoke({ messages: [new HumanMessage("note a and look up b")] }, config);
      await agent.invoke({ messages: [new HumanMessage("and now?")] }, config);
      const stored = (await agent.graph.getState(config)).values.messages as BaseMessage[];
      const shape = (messages: BaseMessage[]) =>
        messages.map((m) => (m.getType() === "tool" ? `tool:${(m as ToolMessage).tool_call_id}` : m.getType()));
      // Stored as ToolNode wrote it: b's result after the note.
      expect(shape(stored).slice(1, 5)).toEqual(["ai", "tool:call_a", Extra === AIMessage ? "ai" : "human", "tool:call_b"]);
      expect(model.providerLog.rejections).toBe(0);
      // In the run and on the next turn, the model gets both results right after the call, the note after them.
      for (const request of requests.slice(1)) {
        const sent = shape(request);
        const at = sent.indexOf("tool:call_a");
        expect(sent.slice(at, at + 2)).toEqual(["tool:call_a", "tool:call_b"]);
        expect(request.some((m) => messageText(m).includes("메모: a was noted"))).toBe(true);
        expect(((request[at - 1] as AIMessage).tool_calls ?? []).map((c) => c.id)).toEqual(["call_a", "call_b"]);
      }
    });
  }
});

describe("tokenCap counts what the middlewares outside it added (R3, R33)", () => {
  const refusal = async (stack: AgentMiddleware[]) => {
    const error = await runTurns(stack, 1, "cap first").then(
      () => undefined,
      (e: unknown) => e,
    );
    return ThreadwiseConfigError.find(error);
  };

  it("a producer of context inside tokenCap: refused at the first model call, naming both and the order that works", async () => {
    const cap = () => tokenCap({ maxTokens: 4000, logger: false });
    const cases: Array<[AgentMiddleware, string, string]> = [
      [historyAware(), "threadwise/history-aware", "[historyAware(), tokenCap()]"],
      [factRecall({ logger: false }), "threadwise/fact-recall", "[factRecall(), tokenCap()]"],
      [workMemory({ logger: false }), "threadwise/work-memory", "[workMemory(), tokenCap()]"],
      [recall({ maxTokens: 200, logger: false }), "threadwise/recall", "[recall(), tokenCap()]"],
      [
        summarize({ model: recordingSummarizer().model, windowSize: 6, threshold: 10, logger: false }),
        "threadwise/summarize",
        "[summarize(), tokenCap()]",
      ],
    ];
    for (const [producer, name, order] of cases) {
      // Refused on turn 1, when the producer has nothing to add yet (no history, no fact, no summary).
      const config = await refusal([cap(), producer]);
      expect(config?.option, name).toBe("middleware");
      expect(config?.message).toContain(`${name} is inside threadwise/token-cap`);
      expect(config?.message).toContain(order);
      // The order that works runs.
      const { model } = await runTurns([producer, cap()], 3, `cap last ${name}`);
      expect(model.providerLog.rejections).toBe(0);
    }
  });

  it("a context block another middleware adds after the cap is refused when it is added", async () => {
    const rag = createMiddleware({
      name: "my/rag",
      wrapModelCall: (request, handler) =>
        handler(addContextBlocks(request, [{ kind: "knowledge", producer: "my/rag", label: "Docs", text: "Seat map: 12A window." }])),
    });
    const config = await refusal([tokenCap({ maxTokens: 4000, logger: false }), rag]);
    expect(config?.message).toContain("my/rag is inside threadwise/token-cap");
    expect(config?.message).toContain('["my/rag", tokenCap()]');
    const { model } = await runTurns([rag, tokenCap({ maxTokens: 4000, logger: false })], 2, "rag first");
    expect(model.providerLog.rejections).toBe(0);
  });
});

describe("windowTrim and summarize compose (R33)", () => {
  it("summarize first: refused at the first model call, naming both and the order that works (the window silently did not apply)", async () => {
    const summarizer = recordingSummarizer();
    const trim = windowTrim({ maxMessages: 6, eviction: "sliding", logger: false });
    const sum = summarize({ model: summarizer.model, windowSize: 20, threshold: 40, startOn: "human", logger: false });
    const error = await runTurns([sum, trim], 1, "summarize first").then(
      () => undefined,
      (e: unknown) => e,
    );
    const config = ThreadwiseConfigError.find(error);
    expect(config?.option).toBe("middleware");
    expect(config?.message).toContain("threadwise/window-trim is inside threadwise/summarize");
    expect(config?.message).toContain("[windowTrim(), summarize()]");
  });

  for (const order of ["windowTrim first"] as const) {
    it(`${order}: on every call, summary coverage + view = the whole stored thread; each message summarized once`, async () => {
      const summarizer = recordingSummarizer();
      // startOn is set once, on the first view-shaping middleware of the list.
      const first = order === "windowTrim first";
      const trim = windowTrim({ maxMessages: 6, eviction: "sliding", startOn: first ? "human" : undefined, logger: false });
      const sum = summarize({ model: summarizer.model, windowSize: 6, threshold: 10, startOn: first ? undefined : "human", logger: false });
      const { model, calls, state } = await runTurns(first ? [trim, sum] : [sum, trim], 14, order);
      expect(model.providerLog.rejections).toBe(0);
      expect(model.providerLog.requests).toBe(calls.length);
      for (const call of calls) {
        // View = every sendable message from the first uncovered one on: no gap, no double coverage.
        expect(call.view.map((m) => m.id)).toEqual(sendable(call.thread.slice(call.coveredUpTo)).map((m) => m.id));
        expect(findOrphans(call.sent)).toEqual([]);
        // One system message, leading, with the stored one merged in.
        expect(call.sent.filter((m) => m.getType() === "system")).toHaveLength(1);
        expect(messageText(call.sent[0] as BaseMessage)).toMatch(/^You are a booking assistant\.\n\nStored rules: be brief\./);
      }
      // Summaries were made, and together they cover exactly the thread before the coverage end.
      const last = calls[calls.length - 1] as CallRecord;
      expect(last.coveredUpTo).toBeGreaterThan(10);
      const covered = last.thread.slice(0, last.coveredUpTo).filter((m) => m.getType() !== "system");
      expect(summarizer.lines).toEqual(covered.flatMap((m) => transcriptLine(m).split("\n")));
      const slot = readSummarySlot(state);
      expect(slot.summary?.coveredThroughId).toBe(covered[covered.length - 1]?.id);
    });
  }

  const cappedStack = (summarizerModel: ReturnType<typeof scriptedModel>, logger: ThreadwiseLogger) => [
    windowTrim({ maxMessages: 6, eviction: "sliding", startOn: "human", logger }),
    summarize({ model: summarizerModel, threshold: 10, logger }),
    tokenCap({ maxTokens: 120, encoding: "o200k_base", logger }),
  ];

  it("with tokenCap inside, the cap has the summary cover what it cuts: the multiturn line counts no uncovered drop", async () => {
    const fields: Array<Record<string, unknown>> = [];
    const logger: ThreadwiseLogger = { info: (_m, f) => fields.push(f ?? {}), warn: () => {} };
    const summarizer = recordingSummarizer();
    const { model } = await runTurns(cappedStack(summarizer.model, logger), 12, "capped");
    expect(model.providerLog.rejections).toBe(0);
    const dropped = fields.map((f) => f.unsummarized_dropped);
    expect(dropped.length).toBeGreaterThanOrEqual(12);
    expect(dropped.every((d) => d === 0)).toBe(true);
    // The cap (120 tokens) holds less than the 6-message window: the summary covered into it.
    expect(summarizer.lines.length).toBeGreaterThan(6);
  });

  it("with tokenCap inside and a failing summarizer, the multiturn line says how many uncovered messages the cap dropped", async () => {
    const fields: Array<Record<string, unknown>> = [];
    const logger: ThreadwiseLogger = { info: (_m, f) => fields.push(f ?? {}), warn: () => {} };
    const failing = scriptedModel(() => new Error("summarizer down"));
    const { model } = await runTurns(cappedStack(failing, logger), 12, "capped-failing");
    expect(model.providerLog.rejections).toBe(0);
    const dropped = fields.map((f) => f.unsummarized_dropped);
    expect(dropped.every((d) => typeof d === "number")).toBe(true);
    expect(dropped.some((d) => (d as number) > 0)).toBe(true);
  });
});

describe("one stack-wide startOn (R33)", () => {
  it("windowTrim({ startOn: 'human' }) outside tokenCap: every view starts on a user message, even when the cap drops the user group the window began on", async () => {
    const calls: CallRecord[] = [];
    const model = agentModel();
    const agent = createAgent({
      model,
      tools: TOOLS,
      checkpointer: new MemorySaver(),
      middleware: [
        windowTrim({ maxMessages: 12, eviction: "sliding", startOn: "human", logger: false }),
        tokenCap({ maxTokens: 260, encoding: "o200k_base", logger: false }),
        recorder(calls),
      ],
    });
    const config = { configurable: { thread_id: "start-on" } };
    for (let t = 1; t <= 12; t += 1) await agent.invoke({ messages: [new HumanMessage(`turn ${t} ${"words ".repeat(t * 3)}`)] }, config);
    let cutByCap = 0;
    for (const call of calls) {
      expect(call.sent[0]?.getType()).toBe("human");
      if (call.view.length < 12) cutByCap += 1;
    }
    expect(cutByCap).toBeGreaterThan(0);
    expect(model.providerLog.rejections).toBe(0);
  });
});

describe("LangChain's humanInTheLoopMiddleware in the same list", () => {
  async function hitlRun(decision: "reject" | "edit") {
    const calls: CallRecord[] = [];
    const model = agentModel();
    const agent = createAgent({
      model,
      tools: TOOLS,
      checkpointer: new MemorySaver(),
      middleware: [
        windowTrim({ maxMessages: 8, startOn: "human", logger: false }),
        humanInTheLoopMiddleware({ interruptOn: { book: { allowedDecisions: ["approve", "edit", "reject"] } } }),
        tokenCap({ maxTokens: 4000, encoding: "o200k_base", logger: false }),
        recorder(calls),
      ],
    });
    const config = { configurable: { thread_id: `hitl-${decision}` } };
    for (let t = 1; t <= 2; t += 1) await agent.invoke({ messages: [new HumanMessage(`turn ${t}`)] }, config);
    // Turn 3: the model calls lookup and book in parallel; book waits for a human.
    await agent.invoke({ messages: [new HumanMessage("turn 3")] }, config);
    const resume =
      decision === "reject"
        ? { decisions: [{ type: "reject" as const, message: "No booking today." }] }
        : { decisions: [{ type: "edit" as const, editedAction: { name: "book", args: { seat: "9C" } } }] };
    await agent.invoke(new Command({ resume }), config);
    await agent.invoke({ messages: [new HumanMessage("turn 4")] }, config);
    const stored = ((await agent.graph.getState(config)).values as { messages: BaseMessage[] }).messages;
    return { calls, model, stored };
  }

  it("reject: the call left without a result (the auto-approved parallel call) never reaches the model; the rejection does (R37)", async () => {
    const { calls, model, stored } = await hitlRun("reject");
    // The stored thread holds an AI message with two calls and only the rejection's result.
    expect(findOrphans(stored).length).toBeGreaterThan(0);
    for (const call of calls) expect(findOrphans(call.sent)).toEqual([]);
    // What was answered stays in view: every later call sees the rejection and the call it answers.
    const after = calls.slice(calls.findIndex((call) => call.sent.some((m) => messageText(m) === "No booking today.")));
    expect(after.length).toBeGreaterThan(1);
    for (const call of after) expect(call.sent.some((m) => messageText(m) === "No booking today.")).toBe(true);
    expect(model.providerLog.rejections).toBe(0);
    expect(model.providerLog.requests).toBe(calls.length);
  });

  it("edit: the edited call runs with the edited arguments and every view stays valid", async () => {
    const { calls, model, stored } = await hitlRun("edit");
    expect(stored.some((m) => m.getType() === "tool" && messageText(m) === "booked 9C")).toBe(true);
    for (const call of calls) expect(findOrphans(call.sent)).toEqual([]);
    expect(model.providerLog.rejections).toBe(0);
  });
});
