/**
 * Scenarios for the middlewares the stack properties draw least (breaker30b): the memoryStack preset
 * with recall, factRecall, workMemory and historyAware on, in each placement mode, run through the
 * LangGraph operations reviewers fuzz with (updateState edits by id, RemoveMessage, forks from old
 * checkpoints, replays), in English and Korean. Every model request (the agent's and the internal
 * condensation calls) goes through the strict provider validator (all four providers); after each
 * operation the request equals what a fresh process (a new stack on the same checkpointer) sends;
 * words of a message edited away or removed are recalled nowhere.
 */
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { messageText, type PromptContextMode, readSummarySlot } from "@threadwise/core";
import { strictModel } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";

const SYSTEM = "You are a travel assistant. 여행 도우미입니다.";
const MODES: PromptContextMode[] = ["legacy_system", "stable_tail", "cache_aware"];

/** Answers that never repeat the user's words (so a word in a request came from a user message or memory). */
function answer(_messages: BaseMessage[], call: number): string {
  return `Noted, answer ${call}.`;
}

function build(checkpointer: MemorySaver, mode: PromptContextMode) {
  const model = strictModel({ answer });
  const stack = memoryStack({
    env: {},
    backend: "in_memory",
    windowSize: 2,
    summarize: false,
    factsMode: "heuristic",
    recallMaxTokens: 300,
    workMemory: true,
    historyAware: true,
    promptContextMode: mode,
    logger: false,
  });
  const agent = createAgent({ model, systemPrompt: SYSTEM, middleware: stack.middleware, checkpointer });
  return { agent, model };
}

/** Everything a request carried, as one string (system prompt, context blocks, messages). */
function requestText(messages: readonly BaseMessage[]): string {
  return messages.map((m) => `${m.getType()}: ${messageText(m)}`).join("\n");
}

function lastRequest(model: { calls: Array<{ messages: BaseMessage[] }> }, skip = 0): BaseMessage[] {
  // The agent's calls: the ones whose last message is a user message (the condensation call's is a human too,
  // but it carries no system prompt of ours).
  const calls = model.calls.filter((c) => messageText(c.messages[0] as BaseMessage).startsWith("You are a travel"));
  return (calls.at(-1 - skip) as { messages: BaseMessage[] }).messages;
}

async function storedMessages(agent: ReturnType<typeof build>["agent"], config: object): Promise<BaseMessage[]> {
  return ((await agent.graph.getState(config as never)).values as { messages: BaseMessage[] }).messages;
}

/** A turn by `a`, and the same turn by a fresh process from the same stored state: both requests. */
async function turnBoth(checkpointer: MemorySaver, mode: PromptContextMode, a: ReturnType<typeof build>, config: object, text: string) {
  // The fresh process runs first, on a fork of the same checkpoint (so the thread is not advanced).
  const fresh = build(checkpointer, mode);
  const head = await a.agent.graph.getState(config as never);
  await fresh.agent.invoke({ messages: [new HumanMessage({ id: `fresh-${text.length}`, content: text })] }, head.config as never);
  await a.agent.invoke({ messages: [new HumanMessage({ id: `fresh-${text.length}`, content: text })] }, head.config as never);
  return { ours: lastRequest(a.model as never), theirs: lastRequest(fresh.model as never) };
}

function shape(messages: readonly BaseMessage[]) {
  return messages.map((m) => ({ type: m.getType(), text: messageText(m) }));
}

describe.each(MODES)("memoryStack(recall, factRecall, workMemory, historyAware), %s", (mode) => {
  it("a removed or edited (Korean and English) message: its words and facts are recalled nowhere, as in a fresh process", async () => {
    const checkpointer = new MemorySaver();
    const a = build(checkpointer, mode);
    const config = { configurable: { thread_id: `t-${mode}` } };
    const turns = [
      // The oldest user message stays: removing the oldest ones is taken for a trim, whose facts are
      // kept (fact-recall README, "Edits, removals, trims and forks"; see the test below).
      { id: "u-rain", content: "It rained all day." },
      { id: "u-hana", content: "My sister Hana lives in Jeju." },
      { id: "u-job", content: "저는 간호사로 일해요." },
      { id: "u-bike", content: "I bought a red bike." },
      { id: "u-pet", content: "제 강아지 이름은 보리예요." },
    ];
    for (const t of turns) await a.agent.invoke({ messages: [new HumanMessage(t)] }, config);
    // Before any edit: the old words are recalled.
    await a.agent.invoke({ messages: [new HumanMessage("Where does Hana live?")] }, config);
    expect(requestText(lastRequest(a.model as never))).toContain("Jeju");

    // RemoveMessage of the Hana message, an edit by id of the Korean job message.
    await a.agent.graph.updateState(config, {
      messages: [new RemoveMessage({ id: "u-hana" }), new HumanMessage({ id: "u-job", content: "저는 요리사로 일해요." })],
    });
    const stored = await storedMessages(a.agent, config);
    expect(stored.some((m) => m.id === "u-hana")).toBe(false);

    const hana = await turnBoth(checkpointer, mode, a, config, "Where does Hana live?");
    expect(requestText(hana.ours)).not.toContain("Jeju");
    expect(shape(hana.ours)).toEqual(shape(hana.theirs));

    const job = await turnBoth(checkpointer, mode, a, config, "제 직업이 뭐였죠? 간호사였나요?");
    expect(requestText(job.ours).replace("간호사였나요", "")).not.toContain("간호사");
    expect(shape(job.ours)).toEqual(shape(job.theirs));

    // Strict validator: no request refused (strictModel throws on a refusal, and logs it).
    expect(a.model.providerLog.rejections).toBe(0);
  });

  it("a fork from before an edit and a replay: each branch recalls its own words, and work memory follows the branch", async () => {
    const checkpointer = new MemorySaver();
    const a = build(checkpointer, mode);
    const config = { configurable: { thread_id: `f-${mode}` } };
    for (const content of ["우리 집은 부산에 있어요.", "I work as a pilot.", "It is cold today.", "Book a table for two."])
      await a.agent.invoke({ messages: [new HumanMessage(content)] }, config);
    const history = [];
    for await (const s of a.agent.graph.getStateHistory(config)) history.push(s);
    // The checkpoint after the second turn ended.
    const afterTwo = history.find(
      (s) => (s.values as { messages: BaseMessage[] }).messages.length === 4 && s.next.length === 0,
    ) as (typeof history)[number];
    const firstId = (afterTwo.values as { messages: BaseMessage[] }).messages[0]?.id as string;
    // Edit the Busan message on the head.
    await a.agent.graph.updateState(config, { messages: [new HumanMessage({ id: firstId, content: "우리 집은 대구에 있어요." })] });
    const head = await turnBoth(checkpointer, mode, a, config, "우리 집이 어디에 있죠?");
    expect(requestText(head.ours)).not.toContain("부산");
    expect(shape(head.ours)).toEqual(shape(head.theirs));

    // Fork from after turn two: the old words are that branch's.
    const forkConfig = afterTwo.config;
    const fresh = build(checkpointer, mode);
    await fresh.agent.invoke({ messages: [new HumanMessage("우리 집이 어디에 있죠?")] }, forkConfig as never);
    await a.agent.invoke({ messages: [new HumanMessage("우리 집이 어디에 있죠?")] }, forkConfig as never);
    const forked = lastRequest(a.model as never);
    expect(shape(forked)).toEqual(shape(lastRequest(fresh.model as never)));
    expect(requestText(forked)).not.toContain("대구");
    // Work memory of the fork: only notes of that branch's answers (two turns, plus nothing after).
    const forkHead = await a.agent.graph.getState(forkConfig as never);
    const notes = readSummarySlot(forkHead.values).workMemory?.entries.map((e) => e.text) ?? [];
    expect(notes.join("\n")).not.toContain("cold");
    expect(notes.join("\n")).not.toContain("table");

    expect(a.model.providerLog.rejections).toBe(0);
    expect(fresh.model.providerLog.rejections).toBe(0);
  });
  it("messages edited by id to blank text (empty, whitespace, zero-width, a blank block beside a word): no request refused, = a fresh process's", async () => {
    const checkpointer = new MemorySaver();
    const a = build(checkpointer, mode);
    const config = { configurable: { thread_id: `blank-${mode}` } };
    for (const content of ["I live in Seoul.", "저는 간호사예요.", "hello", "bye"])
      await a.agent.invoke({ messages: [new HumanMessage(content)] }, config);
    const stored = await storedMessages(a.agent, config);
    const ais = stored.filter((m) => m.getType() === "ai");
    const users = stored.filter((m) => m.getType() === "human");
    await a.agent.graph.updateState(config, {
      messages: [
        new AIMessage({ id: ais[0]?.id as string, content: "" }),
        new AIMessage({ id: ais[1]?.id as string, content: [{ type: "text", text: "  \n" }] }),
        new HumanMessage({ id: users[1]?.id as string, content: "\u200b" }),
        new HumanMessage({
          id: users[2]?.id as string,
          content: [
            { type: "text", text: " " },
            { type: "text", text: "hi" },
          ],
        }),
      ],
    });
    const turn = await turnBoth(checkpointer, mode, a, config, "어디 살아요? Where do I live?");
    expect(shape(turn.ours)).toEqual(shape(turn.theirs));
    expect(a.model.providerLog.rejected).toEqual([]);
  });
});
