/**
 * Facts follow the stored thread through edits (spec R37, fact-recall README "Edits, removals,
 * trims and forks"): after a rewrite (`REMOVE_ALL_MESSAGES` then a new history), an edit in place
 * (`updateState` with a stored id) or a `RemoveMessage`, the facts are what reading the thread as
 * stored gives; facts of messages persistTrim deleted stay; a fork sees its own branch's facts.
 * On in_memory, SQLite and PostgreSQL, with a second agent (no cache of the first) as the
 * fresh-process check.
 */
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { type BaseCheckpointSaver, REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { systemText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { FACTS_STATE_KEY, type FactSlot, factRecall } from "@threadwise/fact-recall";
import type { ThreadwiseSaver } from "@threadwise/memory";
import { persistTrim } from "@threadwise/persist-trim";
import { createAgent } from "langchain";
import { afterEach, describe, expect, it } from "vitest";
import { threadwiseSavers } from "./support/threadwise-savers.js";

const savers = threadwiseSavers("twfedit");
/** Every saver a test opened, closed after it (before the file's database is dropped). */
const opened: ThreadwiseSaver[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((saver) => saver.close()));
});

function newAgent(checkpointer: BaseCheckpointSaver, options: { trim?: number } = {}) {
  const model = scriptedModel(() => "ok");
  const middleware = [
    factRecall({ promptContextMode: "legacy_system" }),
    ...(options.trim ? [persistTrim({ keepGroups: options.trim, logger: false })] : []),
  ];
  const agent = createAgent({ model, systemPrompt: "S", checkpointer, middleware });
  return { agent, model };
}
type Built = ReturnType<typeof newAgent>;

const cfg = (thread_id: string, checkpoint_id?: string) => ({ configurable: { thread_id, ...(checkpoint_id ? { checkpoint_id } : {}) } });
const say = (b: Built, thread: string, content: string) => b.agent.invoke({ messages: [new HumanMessage(content)] }, cfg(thread));
async function slotOf(b: Built, thread: string): Promise<FactSlot> {
  return (await b.agent.graph.getState(cfg(thread))).values[FACTS_STATE_KEY] as FactSlot;
}
async function messagesOf(b: Built, thread: string): Promise<BaseMessage[]> {
  return (await b.agent.graph.getState(cfg(thread))).values.messages as BaseMessage[];
}
const factsOf = (slot: FactSlot) => slot.facts.map((f) => `${f.key}=${f.value}${f.endedTurn === undefined ? "" : " (ended)"}`).sort();
const lastSystem = (b: Built) => systemText(b.model.calls.at(-1)?.messages[0] as never);

/** The facts a thread that only ever held `messages`' user messages gets: the oracle. */
async function factsOfFreshThread(checkpointer: BaseCheckpointSaver, messages: readonly BaseMessage[]): Promise<string[]> {
  const b = newAgent(checkpointer);
  const thread = `oracle-${Math.random().toString(36).slice(2)}`;
  const history = messages.filter((m) => m.getType() === "human").map((m) => new HumanMessage(m.text));
  await b.agent.invoke({ messages: history }, cfg(thread));
  return factsOf(await slotOf(b, thread));
}

describe.each(savers)("factRecall after edits on %s", (_name, openSaver) => {
  const open = () => {
    const saver = openSaver();
    opened.push(saver);
    return saver;
  };
  it("REMOVE_ALL_MESSAGES then a new history: the old residence goes, the new one is read", async () => {
    const saver = open();
    const b = newAgent(saver);
    const thread = "rewrite";
    await say(b, thread, "I live in Busan.");
    await say(b, thread, "I like green tea.");
    await b.agent.graph.updateState(cfg(thread), {
      messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), new HumanMessage("I live in Jeju."), new AIMessage("Noted.")],
    });
    await say(b, thread, "Where do I live?");
    const slot = await slotOf(b, thread);
    expect(factsOf(slot)).toEqual(["user|residence=Jeju"]);
    expect(lastSystem(b)).toContain("- User lives in Jeju");
    expect(lastSystem(b)).not.toContain("Busan");
    expect(factsOf(slot)).toEqual(await factsOfFreshThread(saver, await messagesOf(b, thread)));
    // Another agent (no cache of this one's) on the same saver: the same facts, the same request.
    const fresh = newAgent(saver);
    await say(fresh, thread, "And where do I live?");
    await say(b, "other", "hello");
    expect(factsOf(await slotOf(fresh, thread))).toEqual(["user|residence=Jeju"]);
    expect(lastSystem(fresh)).toContain("- User lives in Jeju");
  });

  it("an edit in place (updateState with the stored id) replaces the facts of that message, and only them", async () => {
    const saver = open();
    const b = newAgent(saver);
    const thread = "edit";
    await say(b, thread, "I live in Seoul.");
    await say(b, thread, "I moved to Busan last month.");
    await say(b, thread, "I like green tea.");
    const busan = (await messagesOf(b, thread)).find((m) => m.text === "I moved to Busan last month.") as BaseMessage;
    await b.agent.graph.updateState(cfg(thread), {
      messages: [new HumanMessage({ id: busan.id as string, content: "I moved to Jeju last month." })],
    });
    await say(b, thread, "Where do I live?");
    const slot = await slotOf(b, thread);
    expect(factsOf(slot)).toEqual(["user|preference|green tea=green tea", "user|residence=Jeju"]);
    expect(slot.facts.find((f) => f.key === "user|residence")?.history?.map((h) => h.value)).toEqual(["Seoul"]);
    expect(lastSystem(b)).toContain("- User moved to Jeju and lives there (before: Seoul)");
    expect(lastSystem(b)).not.toContain("Busan");
    expect(factsOf(slot)).toEqual(await factsOfFreshThread(saver, await messagesOf(b, thread)));
  });

  it("RemoveMessage of the message that replaced a fact brings the older value back", async () => {
    const saver = open();
    const b = newAgent(saver);
    const thread = "remove";
    await say(b, thread, "I live in Seoul.");
    await say(b, thread, "I moved to Busan last month.");
    await say(b, thread, "I like green tea.");
    const busan = (await messagesOf(b, thread)).find((m) => m.text === "I moved to Busan last month.") as BaseMessage;
    await b.agent.graph.updateState(cfg(thread), { messages: [new RemoveMessage({ id: busan.id as string })] });
    await say(b, thread, "Where do I live?");
    const slot = await slotOf(b, thread);
    expect(factsOf(slot)).toEqual(["user|preference|green tea=green tea", "user|residence=Seoul"]);
    expect(lastSystem(b)).not.toContain("Busan");
    expect(factsOf(slot)).toEqual(await factsOfFreshThread(saver, await messagesOf(b, thread)));
  });

  it("removing the newest read message (the cursor) reads from the last one still stored, not only the newest", async () => {
    const saver = open();
    const b = newAgent(saver);
    const thread = "cursor";
    await say(b, thread, "I live in Busan.");
    await say(b, thread, "I moved to Daegu.");
    const stored = await messagesOf(b, thread);
    const daegu = stored.find((m) => m.text === "I moved to Daegu.") as BaseMessage;
    // The user replaces the last exchange with two new messages in one update.
    await b.agent.graph.updateState(cfg(thread), {
      messages: [
        new RemoveMessage({ id: daegu.id as string }),
        new RemoveMessage({ id: stored.at(-1)?.id as string }),
        new HumanMessage("My name is Mina."),
        new AIMessage("Hi Mina."),
      ],
    });
    await say(b, thread, "I like jazz.");
    const slot = await slotOf(b, thread);
    expect(factsOf(slot)).toEqual(["user|name=Mina", "user|preference|jazz=jazz", "user|residence=Busan"]);
    expect(factsOf(slot)).toEqual(await factsOfFreshThread(saver, await messagesOf(b, thread)));
  });

  it("facts of messages persistTrim deleted stay; a rewrite after the trim still drops what it removed", async () => {
    const saver = open();
    const b = newAgent(saver, { trim: 2 });
    const thread = "trim";
    await say(b, thread, "My name is Kim.");
    await say(b, thread, "I live in Busan.");
    await say(b, thread, "I like green tea.");
    await say(b, thread, "What is the weather like?");
    const stored = await messagesOf(b, thread);
    expect(stored.map((m) => m.text)).toEqual(["What is the weather like?", "ok"]);
    await say(b, thread, "Where do I live?");
    expect(factsOf(await slotOf(b, thread))).toEqual(["user|name=Kim", "user|preference|green tea=green tea", "user|residence=Busan"]);
    expect(lastSystem(b)).toContain("- User lives in Busan");
    // Another agent on the same saver keeps them too.
    const fresh = newAgent(saver, { trim: 2 });
    await say(fresh, thread, "What is my name?");
    expect(factsOf(await slotOf(fresh, thread))).toEqual(["user|name=Kim", "user|preference|green tea=green tea", "user|residence=Busan"]);
    // An edit in place of a message still stored after the trim: its facts are read again, the trimmed ones stay.
    const where = (await messagesOf(b, thread)).find((m) => m.text === "What is my name?") as BaseMessage;
    await b.agent.graph.updateState(cfg(thread), { messages: [new HumanMessage({ id: where.id as string, content: "I moved to Jeju." })] });
    await say(b, thread, "Where do I live?");
    const slot = await slotOf(b, thread);
    expect(factsOf(slot)).toEqual(["user|name=Kim", "user|preference|green tea=green tea", "user|residence=Jeju"]);
    expect(lastSystem(b)).toContain("- User moved to Jeju and lives there (before: Busan)");
  });

  it("a fork from an older checkpoint sees the facts of its own branch", async () => {
    const saver = open();
    const b = newAgent(saver);
    const thread = "fork";
    await say(b, thread, "I live in Busan.");
    const before = (await b.agent.graph.getState(cfg(thread))).config.configurable?.checkpoint_id as string;
    await say(b, thread, "I moved to Jeju.");
    expect(factsOf(await slotOf(b, thread))).toEqual(["user|residence=Jeju"]);
    await b.agent.invoke({ messages: [new HumanMessage("I like jazz.")] }, cfg(thread, before));
    const slot = await slotOf(b, thread);
    expect(factsOf(slot)).toEqual(["user|preference|jazz=jazz", "user|residence=Busan"]);
    expect(factsOf(slot)).toEqual(await factsOfFreshThread(saver, await messagesOf(b, thread)));
  });
});
