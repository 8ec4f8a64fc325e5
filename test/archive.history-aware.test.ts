/**
 * historyAware with the message archive (issue 27, spec R7): the note is decided on the whole
 * thread. Was: on the hot part only, so a turn whose tool loop pushed every earlier turn out of the
 * checkpoint was told it had no earlier turns, and its requests lost the note a run without the
 * archive sends (the slow archive fuzz, seed 108 case 22).
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { messageText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { DEFAULT_HISTORY_NOTE } from "@threadwise/history-aware";
import { memoryStack, type ThreadwiseSaver } from "@threadwise/memory";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";

const config = { configurable: { thread_id: "t" } };
/**
 * Turns answered before the one with the long tool loop: 22 messages, so that the loop's first
 * calls archive the last of them (memoryStack's default batch is 10 messages; with 10 turns the
 * batch before the loop ends at u5, and the 9 messages between it and the loop's turn stay hot).
 */
const EARLIER_TURNS = 11;
/** Tool calls in the last turn's loop: more groups than the archive keeps hot (window 2 + margin 4). */
const LOOP_CALLS = 8;

/** The system text of every model call of the last turn, and the archived message ids at the end. */
async function lastTurnSystems(archive: boolean): Promise<{ systems: string[]; archived: string[] }> {
  const stack = memoryStack({
    backend: "in_memory",
    archive,
    windowSize: 2,
    summarize: false,
    recallMaxTokens: false,
    factsMode: "off",
    logger: false,
    env: {},
  });
  const saver = stack.checkpointer as ThreadwiseSaver;
  const lookup = tool(async ({ q }: { q: string }) => `found ${q}`, {
    name: "lookup",
    description: "looks a thing up",
    schema: z.object({ q: z.string() }),
  });
  let loop = 0;
  const model = scriptedModel((messages) => {
    const last = messages.at(-1) as BaseMessage;
    const inLoop = last.getType() === "tool" || messageText(last).startsWith("look");
    if (inLoop && loop < LOOP_CALLS) {
      loop += 1;
      return new AIMessage({ id: `loop${loop}`, content: "", tool_calls: [{ id: `c${loop}`, name: "lookup", args: { q: `q${loop}` } }] });
    }
    return new AIMessage({ content: "done" });
  });
  const agent = createAgent({
    model,
    tools: [lookup],
    systemPrompt: "You are a helpful assistant.",
    checkpointer: saver,
    middleware: stack.middleware,
  });
  for (let k = 0; k < EARLIER_TURNS; k += 1)
    await agent.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: `turn ${k}` })] }, config);
  const before = model.calls.length;
  await agent.invoke({ messages: [new HumanMessage({ id: "last", content: "look everything up" })] }, config);
  const systems = model.calls.slice(before).map((call) => messageText(call.messages[0] as BaseMessage));
  const archived = archive ? (await saver.archivedMessages("t")).map((m) => String(m.id)) : [];
  return { systems, archived };
}

describe("historyAware with the archive", () => {
  it("a tool loop that archived every earlier turn still gets the note, as a run without the archive", async () => {
    const plain = await lastTurnSystems(false);
    const archived = await lastTurnSystems(true);
    // Every earlier turn left the checkpoint during the loop.
    expect(archived.archived).toContain(`u${EARLIER_TURNS - 1}`);
    expect(plain.systems.length).toBe(LOOP_CALLS + 1);
    for (const system of plain.systems) expect(system).toContain(DEFAULT_HISTORY_NOTE);
    // Was: the calls after the archiving had no note.
    expect(archived.systems).toEqual(plain.systems);
  });
});
