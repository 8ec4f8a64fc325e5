/**
 * recall after a restart (issue 15): recall persists nothing of its own; a fresh agent (a new
 * process: new middleware instance, empty in-process index) on the same SqliteSaver file or
 * PostgresSaver schema rebuilds its index from the stored thread and recalls what an earlier
 * process stored, including the facts factRecall keeps in the checkpointed state. Another thread
 * on the same storage recalls none of it.
 */
import { HumanMessage, type SystemMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { systemText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { factRecall } from "@threadwise/fact-recall";
import { recall } from "@threadwise/recall";
import { windowTrim } from "@threadwise/window-trim";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { reopenableSavers } from "./support/reopenable-savers.js";

const { cases, cleanup } = reopenableSavers("twrecall");
afterAll(cleanup);

function newAgent(checkpointer: BaseCheckpointSaver) {
  const model = scriptedModel(() => "ok");
  const agent = createAgent({
    model,
    systemPrompt: "S",
    checkpointer,
    middleware: [
      factRecall({ promptContextMode: "legacy_system", minScore: 1000 }),
      windowTrim({ maxMessages: 2 }),
      recall({ promptContextMode: "legacy_system", neighbours: 0 }),
    ],
  });
  return { agent, model };
}

const LABEL = "[Recalled from earlier in this conversation]";

describe.each(cases)("recall on $name", ({ open }) => {
  it("rebuilds its index from the stored thread after a restart, per thread", async () => {
    const first = newAgent(await open());
    const config = { configurable: { thread_id: "recall-1" } };
    for (const content of ["My sister Hana lives in Jeju.", "저는 간호사로 일해요.", "It rained all day.", "I bought a red bike."]) {
      await first.agent.invoke({ messages: [new HumanMessage(content)] }, config);
    }

    // A new agent and a new saver on the same storage: what a restarted process sees.
    const second = newAgent(await open());
    await second.agent.invoke({ messages: [new HumanMessage("Where does Hana live?")] }, config);
    const block = systemText(second.model.calls[0]?.messages[0] as SystemMessage);
    expect(block).toContain(`${LABEL}\n#1 user: My sister Hana lives in Jeju.`);
    // A fact from the checkpointed slot is recalled too, pointing at its message.
    await second.agent.invoke({ messages: [new HumanMessage("제 직업이 뭐였죠?")] }, config);
    expect(systemText(second.model.calls[1]?.messages[0] as SystemMessage)).toMatch(/- fact \(from #3\): 사용자는 간호사/);

    await second.agent.invoke({ messages: [new HumanMessage("Where does Hana live?")] }, { configurable: { thread_id: "recall-2" } });
    expect(systemText(second.model.calls[2]?.messages[0] as SystemMessage)).toBe("S");
  });
});
