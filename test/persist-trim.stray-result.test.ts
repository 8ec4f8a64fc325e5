/**
 * persistTrim on a thread where a parallel call's result is a stray inside the call's span (R5,
 * R37; the archive's case, seed 302 case 10). A call id of a parallel call edited in place
 * (`updateState`, as humanInTheLoop's edit does) leaves the result of the old id between the call
 * and the result it still answers; core groups the call with that result and the stray as an
 * orphan group after it. `messagesToDelete` deleted the call's group and left the stray alone at
 * the head of the stored thread: a result whose call the trim had just deleted, kept in place of
 * the call's answered result. It now cuts where no group spans across (core's `groupCut`, as
 * memory's `messagesToArchive` does): the call goes with its stray on a later trim.
 *
 * What the model receives was valid before and stays so: every request passes the strict
 * validator (OpenAI, Anthropic, Gemini, Bedrock), with and without windowTrim's view, and the
 * requests are the same (the call's group is before the window's first user message either way).
 * English and Korean turns.
 */
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { strictModel } from "@threadwise/core/testing";
import { messagesToDelete, persistTrim } from "@threadwise/persist-trim";
import { windowTrim } from "@threadwise/window-trim";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";

const lookup = tool(async ({ q }: { q: string }) => `lookup ${q}: ok`, {
  name: "lookup",
  description: "Looks things up.",
  schema: z.object({ q: z.string() }),
});

const TURNS = {
  english: ["I live in Seoul. Where do I live, and what's the weather?", "I moved to Busan last month.", "How is the weather there?"],
  korean: ["저는 서울에 살아요. 제가 어디 살고 날씨는 어때요?", "지난달에 부산으로 이사했어요.", "거기 날씨는 어때요?"],
};

/** A message as the test reads it: type and id (a tool result's call id: ToolNode draws its ids per run). */
function shapeOf(message: BaseMessage): string {
  return `${message.getType()}:${ToolMessage.isInstance(message) ? message.tool_call_id : message.id}`;
}

/** Turn 0's parallel call, its first call id `first` (`call_3`; `call_edit0` once edited). */
const parallelCall = (first: string) =>
  new AIMessage({
    id: "a0",
    content: "",
    tool_calls: [first, "call_1"].map((id, i) => ({
      id,
      name: "lookup",
      args: { q: i === 0 ? "서울" : "weather" },
      type: "tool_call" as const,
    })),
  });

/**
 * Turn 0 makes a parallel call (two results); its first call id is then edited in place (call_3's
 * result becomes a stray between the call and call_1's result); two more turns follow through
 * `persistTrim({ keepGroups: 4 })`, with windowTrim's view or without. The stored thread after each.
 */
async function run(turns: readonly string[], view: boolean) {
  const requests: string[][] = [];
  const model = strictModel({
    answer: (messages, call) => {
      requests.push(messages.map(shapeOf));
      if (call === 0) return parallelCall("call_3");
      const last = messages.at(-1);
      if (last && ToolMessage.isInstance(last)) return new AIMessage({ id: `a${call}`, content: "You live in Seoul; 맑아요." });
      return new AIMessage({ id: `a${call}`, content: `answer ${call}: ${String(last?.content).slice(0, 12)}` });
    },
  });
  const config = { configurable: { thread_id: "stray" } };
  const middleware = [
    ...(view ? [windowTrim({ maxMessages: 20, logger: false })] : []),
    persistTrim({ keepGroups: 4, logger: false }),
  ] as never[];
  const agent = createAgent({ model, tools: [lookup], checkpointer: new MemorySaver(), middleware });
  const stored = async () => ((await agent.graph.getState(config)).values as { messages: BaseMessage[] }).messages;
  const turn = (k: number) => agent.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: turns[k] as string })] }, config);
  await turn(0);
  const call = (await stored()).find((m) => m.id === "a0") as AIMessage;
  const renamed = (call.tool_calls ?? []).map((c, i) => ({ ...c, id: i === 0 ? "call_edit0" : c.id, type: "tool_call" as const }));
  await agent.graph.updateState(config, { messages: [new AIMessage({ id: "a0", content: "", tool_calls: renamed })] });
  const threads: string[][] = [];
  for (let k = 1; k < turns.length; k += 1) {
    await turn(k);
    threads.push((await stored()).map(shapeOf));
  }
  return { requests, threads, rejected: model.providerLog.rejected };
}

describe.each(Object.entries(TURNS))("persistTrim: a stray result inside a parallel call's span (%s)", (_language, turns) => {
  it.each([true, false])(
    "keeps the call with its stray, and every request is valid for every provider (windowTrim view: %s)",
    async (view) => {
      const { requests, threads, rejected } = await run(turns, view);
      expect(rejected).toEqual([]);
      // The stray is never sent; the call goes out without its edited call, with call_1's result.
      expect(requests[2]).toEqual(["human:u0", "ai:a0", "tool:call_1", "ai:a1", "human:u1"]);
      expect(requests[3]).toEqual(["human:u1", "ai:a2", "human:u2"]);
      // After turn 1 (six groups, the stray counted, four kept): the cut falls inside the call's span,
      // so it moves back before the call (was: the call's group deleted, the stray left at the head).
      expect(threads[0]).toEqual(["ai:a0", "tool:call_3", "tool:call_1", "ai:a1", "human:u1", "ai:a2"]);
      // After turn 2 the call leaves with its stray, and the thread is what it was before the fix.
      expect(threads[1]).toEqual(["human:u1", "ai:a2", "human:u2", "ai:a3"]);
    },
  );

  it("messagesToDelete never cuts between a call and a stray result of its own", () => {
    const thread = [
      new HumanMessage({ id: "u0", content: turns[0] as string }),
      parallelCall("call_edit0"),
      new ToolMessage({ id: "t3", tool_call_id: "call_3", content: "lookup 서울: ok" }),
      new ToolMessage({ id: "t1", tool_call_id: "call_1", content: "lookup weather: ok" }),
      new AIMessage({ id: "a1", content: "You live in Seoul; 맑아요." }),
      new HumanMessage({ id: "u1", content: turns[1] as string }),
      new AIMessage({ id: "a2", content: "answer" }),
      new HumanMessage({ id: "u2", content: turns[2] as string }),
    ];
    // Groups: u0, [a0 t1], the stray t3, a1, u1, a2, u2 (the run's turn). Keeping five, the cut
    // falls between the call's group and its stray: it moves back before the call.
    expect(messagesToDelete(thread, 5)).toEqual(["u0"]);
    expect(messagesToDelete(thread, 6)).toEqual(["u0"]);
    // Past the stray, the call goes with it.
    expect(messagesToDelete(thread, 4)).toEqual(["u0", "a0", "t1", "t3"]);
    expect(messagesToDelete(thread, 7)).toEqual([]);
  });
});
