/**
 * factRecall facts survive a restart (spec R16): a fresh agent on the same SqliteSaver file or
 * PostgresSaver schema recalls what an earlier agent process stored, and a second thread on the
 * same storage sees none of it.
 */
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { systemText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { FACTS_STATE_KEY, type FactSlot, factRecall } from "@threadwise/fact-recall";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { reopenableSavers } from "./support/reopenable-savers.js";

const { cases, cleanup } = reopenableSavers("twfacts");
afterAll(cleanup);

function newAgent(checkpointer: BaseCheckpointSaver) {
  const model = scriptedModel(() => "ok");
  const agent = createAgent({ model, systemPrompt: "S", checkpointer, middleware: [factRecall({ promptContextMode: "legacy_system" })] });
  return { agent, model };
}

describe.each(cases)("factRecall on $name", ({ open }) => {
  it("recalls facts stored by an earlier agent, only in their own thread", async () => {
    const first = newAgent(await open());
    const config = { configurable: { thread_id: "facts-1" } };
    for (const content of ["I live in Seoul.", "저는 개발자예요.", "I moved to Busan last month."]) {
      await first.agent.invoke({ messages: [new HumanMessage(content)] }, config);
    }

    // A new agent and a new saver on the same storage: what a restarted process sees.
    const second = newAgent(await open());
    const slot = (await second.agent.graph.getState(config)).values[FACTS_STATE_KEY] as FactSlot;
    expect(slot.facts.map((f) => [f.key, f.value, f.previousValue])).toEqual([
      ["user|residence", "Busan", "Seoul"],
      ["user|work", "개발자", undefined],
    ]);
    await second.agent.invoke({ messages: [new HumanMessage("Where do I live now?")] }, config);
    expect(systemText(second.model.calls[0]?.messages[0] as never)).toContain(
      "[Known facts about the user]\n- User moved to Busan and lives there",
    );

    await second.agent.invoke({ messages: [new HumanMessage("Where do I live now?")] }, { configurable: { thread_id: "facts-2" } });
    expect(systemText(second.model.calls[1]?.messages[0] as never)).toBe("S");
    const other = (await second.agent.graph.getState({ configurable: { thread_id: "facts-2" } })).values[FACTS_STATE_KEY] as FactSlot;
    expect(other.facts).toEqual([]);
    expect(((second.model.calls[1]?.messages ?? []) as BaseMessage[]).map((m) => m.getType())).toEqual(["system", "human"]);
  });
});
