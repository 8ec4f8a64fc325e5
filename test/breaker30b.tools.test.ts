/**
 * Scenarios for the middlewares the stack properties draw least (breaker30b): the memoryStack preset
 * with every non-destructive middleware on (recall, factRecall, workMemory, historyAware, tokenCap,
 * summarize) over a thread of parallel tool calls, under the LangGraph operations reviewers fuzz
 * with: a ToolMessage removed by id (its call left unanswered), an AI message edited by id to drop
 * one of its calls (its result left orphaned), a tool result edited to long Korean text, a
 * `bulkUpdateState` import of parallel calls some of which are never answered, a `__copy__` fork of
 * a checkpoint waiting for tools resumed with `invoke(null)`. Every model request (agent,
 * summarizer, condensation) goes through the strict provider validator (all four providers:
 * every call answered, no orphan result, unique call ids, roles alternated, no empty text, one
 * system message first); every turn equals what a fresh process sends from the same checkpoint.
 */

import { createHash } from "node:crypto";
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage, ToolMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { messageText, type PromptContextMode } from "@threadwise/core";
import { strictModel } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { createAgent, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";

const SYSTEM = "You are a travel assistant. 여행 도우미입니다.";
const lookup = tool(async ({ q }: { q: string }) => `result for ${q}: 서울 맑음, 12°C`, {
  name: "lookup",
  description: "Looks a thing up.",
  schema: z.object({ q: z.string() }),
});

const digest = (text: string) => createHash("sha1").update(text).digest("hex").slice(0, 8);

/** Parallel calls after a user message (ids from its text: a fresh process answers the same), text otherwise. */
function answer(messages: BaseMessage[]): string | AIMessage {
  const last = messages.at(-1);
  const call = digest(messages.map((m) => messageText(m)).join("\n"));
  if (last?.getType() === "human" && !messageText(last).startsWith("<")) {
    return new AIMessage({
      content: "",
      tool_calls: [
        { id: `call_${call}_a`, name: "lookup", args: { q: `weather ${call}` }, type: "tool_call" },
        { id: `call_${call}_b`, name: "lookup", args: { q: `hotel ${call}` }, type: "tool_call" },
      ],
    });
  }
  return `Done, answer ${call}.`;
}

function build(checkpointer: MemorySaver, mode: PromptContextMode) {
  const model = strictModel({ answer });
  const helper = strictModel({
    answer: (m) => `Summary ${digest(m.map((x) => messageText(x)).join("\n"))}.`,
  });
  const stack = memoryStack({
    env: {},
    backend: "in_memory",
    windowSize: 6,
    summarize: true,
    summarizeThreshold: 10,
    maxHistoryTokens: 600,
    factsMode: "heuristic",
    recallMaxTokens: 200,
    workMemory: true,
    historyAware: true,
    promptContextMode: mode,
    models: { summarize: helper as never, workMemory: helper as never },
    logger: false,
  });
  const agent = createAgent({ model, tools: [lookup], systemPrompt: SYSTEM, middleware: stack.middleware, checkpointer });
  return { agent, model, helper };
}

function agentCalls(model: { calls: Array<{ messages: BaseMessage[] }> }) {
  return model.calls.filter((c) => messageText(c.messages[0] as BaseMessage).startsWith("You are a travel"));
}
const shape = (messages: readonly BaseMessage[]) =>
  messages.map((m) => ({
    type: m.getType(),
    text: messageText(m),
    calls: ((m as AIMessage).tool_calls ?? []).map((c) => c.id),
    answers: (m as ToolMessage).tool_call_id,
  }));

async function stored(agent: ReturnType<typeof build>["agent"], config: object): Promise<BaseMessage[]> {
  return ((await agent.graph.getState(config as never)).values as { messages: BaseMessage[] }).messages;
}

describe.each(["legacy_system", "stable_tail", "cache_aware"] as const)("memoryStack over parallel tool calls, %s", (mode) => {
  it("removed results, edited calls, Korean results, an import with unanswered calls, a copied fork: every request valid, = a fresh process's", async () => {
    const checkpointer = new MemorySaver();
    const a = build(checkpointer, mode);
    const config = { configurable: { thread_id: `tools-${mode}` } };
    /** A turn (or a resume with `input` null) by a fresh process first, then ours, from `from`; compares the agent's requests. */
    const both = async (input: { messages: BaseMessage[] } | null, from: object, label: string) => {
      const fresh = build(checkpointer, mode);
      const before = agentCalls(a.model as never).length;
      await fresh.agent.invoke(input as never, from as never);
      await a.agent.invoke(input as never, from as never);
      const ours = agentCalls(a.model as never).slice(before);
      const theirs = agentCalls(fresh.model as never);
      expect(
        ours.map((c) => shape(c.messages)),
        label,
      ).toEqual(theirs.map((c) => shape(c.messages)));
      expect(fresh.model.providerLog.rejected, label).toEqual([]);
      expect(fresh.helper.providerLog.rejected, label).toEqual([]);
    };
    for (const content of ["I live in Seoul.", "저는 간호사로 일해요.", "Find me a hotel.", "제 이름은 민지예요."])
      await a.agent.invoke({ messages: [new HumanMessage(content)] }, config);

    // A ToolMessage removed by id: its call is left unanswered.
    let messages = await stored(a.agent, config);
    const result = messages.find((m) => m.getType() === "tool") as ToolMessage;
    await a.agent.graph.updateState(config, { messages: [new RemoveMessage({ id: result.id as string })] });
    await both(
      { messages: [new HumanMessage({ id: "q1", content: "Where do I live?" })] },
      (await a.agent.graph.getState(config)).config,
      "removed result",
    );

    // An AI message edited by id to drop one of its two calls: that call's result is an orphan.
    messages = await stored(a.agent, config);
    const calling = messages.filter((m) => ((m as AIMessage).tool_calls ?? []).length === 2).at(1) as AIMessage;
    await a.agent.graph.updateState(config, {
      messages: [new AIMessage({ id: calling.id as string, content: "", tool_calls: (calling.tool_calls ?? []).slice(0, 1) })],
    });
    // A tool result edited to long Korean text.
    const korean = messages.filter((m) => m.getType() === "tool").at(-1) as ToolMessage;
    await a.agent.graph.updateState(config, {
      messages: [
        new ToolMessage({
          id: korean.id as string,
          tool_call_id: korean.tool_call_id,
          content: "서울 호텔 목록: 신라, 롯데, 조선. ".repeat(40),
        }),
      ],
    });
    await both(
      { messages: [new HumanMessage({ id: "q2", content: "제 직업이 뭐죠?" })] },
      (await a.agent.graph.getState(config)).config,
      "edited calls",
    );

    // An import of parallel calls, one never answered, then a user message: bulkUpdateState.
    await a.agent.graph.bulkUpdateState(config, [
      {
        updates: [{ values: { messages: [new HumanMessage({ id: "imp-u", content: "Import: 부산 날씨와 호텔" })] }, asNode: "__input__" }],
      },
      {
        updates: [
          {
            values: {
              messages: [
                new AIMessage({
                  id: "imp-ai",
                  content: "",
                  tool_calls: [
                    { id: "imp_a", name: "lookup", args: { q: "부산 날씨" }, type: "tool_call" },
                    { id: "imp_b", name: "lookup", args: { q: "부산 호텔" }, type: "tool_call" },
                  ],
                }),
                new ToolMessage({ id: "imp-t", tool_call_id: "imp_a", content: "부산 맑음" }),
                new AIMessage({ id: "imp-end", content: "부산은 맑아요." }),
              ],
            },
            asNode: "model_request",
          },
        ],
      },
    ]);
    await both(
      { messages: [new HumanMessage({ id: "q3", content: "And the hotel?" })] },
      (await a.agent.graph.getState(config)).config,
      "import",
    );

    // An import whose call ids are longer than 40 characters, one of them repeated by a later call
    // (as providers that number calls per answer store), in Korean.
    const long = `toolu_${"가나다abc".repeat(10)}`;
    await a.agent.graph.updateState(config, {
      messages: [
        new HumanMessage({ id: "imp2-u", content: "제주 날씨 두 번 알려줘" }),
        new AIMessage({ id: "imp2-ai1", content: "", tool_calls: [{ id: long, name: "lookup", args: { q: "제주" }, type: "tool_call" }] }),
        new ToolMessage({ id: "imp2-t1", tool_call_id: long, content: "제주 흐림" }),
        new AIMessage({
          id: "imp2-ai2",
          content: "",
          tool_calls: [{ id: long, name: "lookup", args: { q: "제주 내일" }, type: "tool_call" }],
        }),
        new ToolMessage({ id: "imp2-t2", tool_call_id: long, content: "제주 비" }),
        new AIMessage({ id: "imp2-end", content: "제주는 흐리고 내일 비가 와요." }),
      ],
    });
    await both(
      { messages: [new HumanMessage({ id: "q3b", content: "Thanks!" })] },
      (await a.agent.graph.getState(config)).config,
      "long ids",
    );

    // A checkpoint waiting for tools, copied as a fork, resumed with invoke(null).
    const history = [];
    for await (const s of a.agent.graph.getStateHistory(config)) history.push(s);
    const waiting = history.find((s) => s.next.includes("tools")) as (typeof history)[number];
    expect(waiting).toBeDefined();
    // Two copies of it, resumed with invoke(null): one by a fresh process, one by ours; the same requests.
    const theirCopy = await a.agent.graph.updateState(waiting.config, undefined, "__copy__");
    const fresh = build(checkpointer, mode);
    await fresh.agent.invoke(null as never, theirCopy);
    const ourCopy = await a.agent.graph.updateState(waiting.config, undefined, "__copy__");
    const before = agentCalls(a.model as never).length;
    await a.agent.invoke(null as never, ourCopy);
    expect(
      agentCalls(a.model as never)
        .slice(before)
        .map((c) => shape(c.messages)),
    ).toEqual(agentCalls(fresh.model as never).map((c) => shape(c.messages)));
    expect(agentCalls(fresh.model as never).length).toBeGreaterThan(0);
    expect(fresh.model.providerLog.rejected).toEqual([]);
    await both(
      { messages: [new HumanMessage({ id: "q4", content: "Thanks. 고마워요." })] },
      (await a.agent.graph.getState(config)).config,
      "after copy",
    );

    expect(a.model.providerLog.rejected).toEqual([]);
    expect(a.helper.providerLog.rejected).toEqual([]);
  });
});
