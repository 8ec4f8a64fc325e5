/**
 * A provider's compaction as a boundary (issue 23): Anthropic's `compaction` block, produced and
 * sent back by the real `@langchain/anthropic` 1.5 converter (a `fetch` stand-in answers, no
 * network), through every documented stack. The compaction message is kept in every view and
 * never orphaned, nothing before its turn is sent, it is counted, and summarize's summary covers
 * only what follows it, each message once.
 */
import { ChatAnthropic } from "@langchain/anthropic";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { compactionBoundary, createTokenCounter, isCompactionMessage, messageText } from "@threadwise/core";
import { scriptedModel, validateProviderRequest } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { summarize } from "@threadwise/summarize";
import { tokenCap } from "@threadwise/token-cap";
import { windowTrim } from "@threadwise/window-trim";
import { type AgentMiddleware, createAgent } from "langchain";
import { describe, expect, it } from "vitest";

const PROVIDER_SUMMARY = "Provider summary: the user planned a trip to Busan and booked KE1401.";
/** The turn on which the provider compacts (its answer carries the compaction block). */
const COMPACTED_TURN = 18;
const TURNS = 44;

interface WireMessage {
  role: string;
  content: string | Array<{ type: string; text?: string; content?: string }>;
}

/** ChatAnthropic whose HTTP calls a local function answers: a compaction block on `COMPACTED_TURN`'s call. */
function anthropicModel() {
  const requests: Array<{ system?: unknown; messages: WireMessage[] }> = [];
  const fetch = async (_url: unknown, init: { body: string }) => {
    const body = JSON.parse(init.body) as { system?: unknown; messages: WireMessage[] };
    requests.push(body);
    const lastUser = [...body.messages].reverse().find((m) => m.role === "user");
    const asked = typeof lastUser?.content === "string" ? lastUser.content : (lastUser?.content.find((b) => b.type === "text")?.text ?? "");
    const turn = Number(/question (\d+)/.exec(asked)?.[1] ?? 0);
    const text = { type: "text", text: `answer ${turn}: ${"details ".repeat(20)}` };
    const content = turn === COMPACTED_TURN ? [{ type: "compaction", content: PROVIDER_SUMMARY }, text] : [text];
    return new Response(
      JSON.stringify({
        id: `msg_${requests.length}`,
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content,
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      }),
      { status: 200, headers: { "content-type": "application/json" } },
    );
  };
  // biome-ignore lint/suspicious/noExplicitAny: the SDK's fetch type is wider than this stand-in
  const model = new ChatAnthropic({ model: "claude-sonnet-4-5", apiKey: "test", maxRetries: 0, clientOptions: { fetch: fetch as any } });
  return { model, requests };
}

/** A summarizer that records the transcript lines of each input. */
function recordingSummarizer() {
  const inputs: string[][] = [];
  const model = scriptedModel((messages) => {
    const text = messageText(messages[1] as BaseMessage);
    const body = text.slice(text.indexOf("<new_messages>\n") + "<new_messages>\n".length, text.indexOf("\n</new_messages>"));
    inputs.push(body.split("\n"));
    return `our summary ${inputs.length}`;
  });
  return { model, inputs };
}

const stacks: Array<{ name: string; summarizes: boolean; build: (summarizer: object) => { middleware: AgentMiddleware[] } }> = [
  {
    name: "summarize",
    summarizes: true,
    build: (s) => ({ middleware: [summarize({ model: s as never, windowSize: 8, threshold: 16, logger: false })] }),
  },
  {
    name: "windowTrim + summarize",
    summarizes: true,
    build: (s) => ({
      middleware: [windowTrim({ maxMessages: 8, logger: false }), summarize({ model: s as never, threshold: 16, logger: false })],
    }),
  },
  { name: "windowTrim", summarizes: false, build: () => ({ middleware: [windowTrim({ maxMessages: 8, logger: false })] }) },
  {
    name: "windowTrim + tokenCap",
    summarizes: false,
    build: () => ({ middleware: [windowTrim({ maxMessages: 12, logger: false }), tokenCap({ maxTokens: 1500, logger: false })] }),
  },
  {
    name: "memoryStack",
    summarizes: true,
    build: (s) => ({
      middleware: memoryStack({ backend: "in_memory", windowSize: 8, summarizeThreshold: 16, env: {}, models: { summarize: s as never } })
        .middleware,
    }),
  },
];

describe("provider compaction as a boundary", () => {
  it("the real converter stores Anthropic's compaction block in the AI message and sends it back as it is", async () => {
    const { model, requests } = anthropicModel();
    const stored = await model.invoke([new HumanMessage(`question ${COMPACTED_TURN}`)]);
    expect(isCompactionMessage(stored)).toBe(true);
    expect(compactionBoundary([new HumanMessage("q"), stored])).toMatchObject({ at: 1, end: 2, provider: "anthropic" });
    await model.invoke([new HumanMessage(`question ${COMPACTED_TURN}`), stored, new HumanMessage("question 99")]);
    expect(requests[1]?.messages[1]?.content).toEqual([
      { type: "compaction", content: PROVIDER_SUMMARY },
      { type: "text", text: expect.stringContaining("answer 18") },
    ]);
    // Counted: the provider's summary text is part of the message's tokens.
    const counter = createTokenCounter();
    const without = new AIMessage({ content: [{ type: "text", text: messageText(stored) }] });
    expect(counter.countMessage(stored) - counter.countMessage(without)).toBe(counter.countText(PROVIDER_SUMMARY));
  });

  for (const stack of stacks) {
    it(`${stack.name}: every request after the compaction carries it, nothing before its turn, and passes the strict checks`, async () => {
      const { model, requests } = anthropicModel();
      const summarizer = recordingSummarizer();
      const sent: BaseMessage[][] = [];
      const agent = createAgent({ model, checkpointer: new MemorySaver(), middleware: stack.build(summarizer.model).middleware as never });
      const config = {
        configurable: { thread_id: `compaction-${stack.name}` },
        callbacks: [{ handleChatModelStart: (_llm: unknown, messages: BaseMessage[][]) => void sent.push(messages[0] as BaseMessage[]) }],
      };
      const inputsBefore: number[] = [];
      for (let k = 1; k <= TURNS; k += 1) {
        inputsBefore.push(summarizer.inputs.length);
        await agent.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: `question ${k}` })] } as never, config as never);
      }
      const agentCalls = sent.filter((messages) => !messageText(messages[0] as BaseMessage).startsWith("Update the running summary"));
      expect(agentCalls).toHaveLength(TURNS);
      expect(requests).toHaveLength(TURNS);
      for (const [i, messages] of agentCalls.entries()) {
        expect(validateProviderRequest(messages)).toEqual([]);
        const turn = i + 1;
        if (turn <= COMPACTED_TURN) continue;
        const wire = requests[i]?.messages as WireMessage[];
        // The compaction message, as the converter sends it, and the user message of its turn first.
        expect(wire[0]).toEqual({ role: "user", content: `question ${COMPACTED_TURN}` });
        expect(wire[1]?.role).toBe("assistant");
        expect(wire[1]?.content).toContainEqual({ type: "compaction", content: PROVIDER_SUMMARY });
        // Nothing from before the compacted turn.
        const text = JSON.stringify(wire);
        for (let old = 1; old < COMPACTED_TURN; old += 1) expect(text).not.toContain(`"question ${old}"`);
        // And the newest turn.
        expect(text).toContain(`question ${turn}`);
      }
      if (!stack.summarizes) return;
      // Our summaries after the compaction hold only messages that follow it, each exactly once
      // over all passes, in order; none of them the compaction message or anything before it.
      const after = summarizer.inputs.slice(inputsBefore[COMPACTED_TURN] as number).flat();
      expect(after.length).toBeGreaterThan(0);
      expect(after.join("\n")).not.toContain("Provider summary");
      const turnsSeen = after.map((line) => Number(/(?:question|answer) (\d+)/.exec(line)?.[1]));
      for (const t of turnsSeen) expect(t).toBeGreaterThan(COMPACTED_TURN);
      expect(new Set(after).size).toBe(after.length);
      const expected: string[] = [];
      for (let t = COMPACTED_TURN + 1; expected.length < after.length; t += 1)
        expected.push(`User: question ${t}`, `Assistant: answer ${t}: ${"details ".repeat(20).trim()}`);
      expect(after).toEqual(expected.slice(0, after.length));
      // The summary placed after the compaction is ours of what follows it, not an older one.
      const last = agentCalls.at(-1) as BaseMessage[];
      expect(messageText(last[0] as BaseMessage)).toContain(`our summary ${summarizer.inputs.length}`);
    });
  }
});
