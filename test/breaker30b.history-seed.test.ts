/**
 * Scenarios for the middlewares the stack properties draw least (breaker30b): historySeed in the
 * memoryStack preset (with workMemory, factRecall, recall, tokenCap) under the LangGraph operations
 * reviewers fuzz with: seeds that start or end on the agent, two user items in a row, Korean and
 * English; a fork from the checkpoint before the seed, a time-travel turn, an edit by id of a seeded
 * message, the seed's messages removed. Every model request goes through the strict provider
 * validator (all four providers: alternation, first message a user's, no empty text), and equals
 * what a fresh process sends from the same checkpoint.
 */
import { type BaseMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { messageText, type PromptContextMode } from "@threadwise/core";
import { strictModel } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";

const SYSTEM = "You are a travel assistant. 여행 도우미입니다.";

function build(checkpointer: MemorySaver, mode: PromptContextMode) {
  const model = strictModel({ answer: (_m, call) => `Noted, answer ${call}.` });
  const stack = memoryStack({
    env: {},
    backend: "in_memory",
    windowSize: 3,
    summarize: false,
    factsMode: "heuristic",
    recallMaxTokens: 200,
    maxHistoryTokens: 300,
    workMemory: true,
    historySeedMaxMessages: 6,
    promptContextMode: mode,
    logger: false,
  });
  const agent = createAgent({ model, systemPrompt: SYSTEM, middleware: stack.middleware, checkpointer });
  return { agent, model };
}

type Item = { role: "user" | "agent"; parts: Array<{ kind: "text"; text: string }> };
const item = (role: "user" | "agent", text: string): Item => ({ role, parts: [{ kind: "text", text }] });

const SEEDS: Record<string, Item[]> = {
  "starts and ends on the agent": [
    item("agent", "안녕하세요! 무엇을 도와드릴까요?"),
    item("user", "I live in Seoul."),
    item("agent", "Great, noted."),
  ],
  "two user items in a row, then the agent twice": [
    item("user", "제 이름은 민지예요."),
    item("user", "I'm allergic to peanuts."),
    item("agent", "Noted."),
    item("agent", "Anything else?"),
  ],
  "more than maxMessages, cut to start on the agent": [
    item("user", "one"),
    item("agent", "two"),
    item("user", "three"),
    item("agent", "four"),
    item("user", "five"),
    item("agent", "six"),
    item("user", "seven"),
  ],
  "blank and whitespace-only text": [item("user", "  "), item("agent", ""), item("user", "다음 주에 부산에 가요."), item("agent", " ")],
};

function agentCalls(model: { calls: Array<{ messages: BaseMessage[] }> }) {
  return model.calls.filter((c) => messageText(c.messages[0] as BaseMessage).startsWith("You are a travel"));
}
const shape = (messages: readonly BaseMessage[]) => messages.map((m) => ({ type: m.getType(), text: messageText(m) }));

describe.each(["legacy_system", "stable_tail", "cache_aware"] as const)("historySeed in memoryStack, %s", (mode) => {
  it.each(Object.entries(SEEDS))("seed %s: turns, fork before the seed, edits and removals of seeded messages", async (name, seed) => {
    const checkpointer = new MemorySaver();
    const a = build(checkpointer, mode);
    const config = { configurable: { thread_id: `seed-${mode}-${name}` } };
    await a.agent.invoke({ messages: [new HumanMessage("Where do I live? 어디 살아요?")] }, { ...config, context: { seedHistory: seed } });
    for (const content of ["Book a window seat.", "제 강아지 이름은 보리예요.", "Thanks."])
      await a.agent.invoke({ messages: [new HumanMessage(content)] }, { ...config, context: { seedHistory: seed } });

    const history = [];
    for await (const s of a.agent.graph.getStateHistory(config)) history.push(s);
    const oldest = history.at(-1) as (typeof history)[number];
    const firstInput = history.filter((s) => ((s.values as { messages?: BaseMessage[] }).messages ?? []).length > 0).at(-1);

    const stored = (await a.agent.graph.getState(config)).values as { messages: BaseMessage[] };
    const seeded = stored.messages.filter((m) => m.id?.startsWith("tw-seed-"));
    expect(seeded.length).toBeGreaterThan(0);
    // Edit a seeded message by id (Korean), remove another.
    if (seeded.length > 0) {
      const updates: BaseMessage[] = [];
      const first = seeded[0] as BaseMessage;
      updates.push(
        first.getType() === "human"
          ? new HumanMessage({ id: first.id as string, content: "저는 대구에 살아요." })
          : new RemoveMessage({ id: first.id as string }),
      );
      if (seeded.length > 1) updates.push(new RemoveMessage({ id: (seeded.at(-1) as BaseMessage).id as string }));
      await a.agent.graph.updateState(config, { messages: updates });
    }

    // The head, a fork from the first input's checkpoint (before the seed), and from the oldest one:
    // each turn by a fresh process first, then ours, from the same checkpoint.
    const head = await a.agent.graph.getState(config);
    for (const [k, from] of [head, firstInput, oldest].entries()) {
      if (from === undefined) continue;
      const input = { messages: [new HumanMessage({ id: `q-${k}`, content: k % 2 ? "What's my name?" : "제가 어디 살죠?" })] };
      const fresh = build(checkpointer, mode);
      await fresh.agent.invoke(input, { ...(from.config as object), context: { seedHistory: seed } } as never);
      await a.agent.invoke(input, { ...(from.config as object), context: { seedHistory: seed } } as never);
      const ours = agentCalls(a.model as never).at(-1)?.messages as BaseMessage[];
      const theirs = agentCalls(fresh.model as never).at(-1)?.messages as BaseMessage[];
      expect(shape(ours), `from ${k}`).toEqual(shape(theirs));
      expect(fresh.model.providerLog.rejected).toEqual([]);
    }
    expect(a.model.providerLog.rejected).toEqual([]);
    expect(a.model.providerLog.requests).toBeGreaterThanOrEqual(7);
  });
});
