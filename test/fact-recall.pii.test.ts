/**
 * Facts come from the committed, middleware-processed messages (issue 15): with LangChain's
 * `piiMiddleware` listed after factRecall (and recall), the stored messages are redacted, and so
 * are the facts, what the extraction model sees, and what recall places.
 */
import { AIMessage, type BaseMessage, HumanMessage, type SystemMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { systemText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { FACTS_STATE_KEY, type FactSlot, factRecall } from "@threadwise/fact-recall";
import { recall } from "@threadwise/recall";
import { windowTrim } from "@threadwise/window-trim";
import { createAgent, piiMiddleware } from "langchain";
import { describe, expect, it } from "vitest";

const EMAIL = "john.doe@example.com";
const SAY = `I registered ${EMAIL} for the climbing club newsletter.`;

async function run(mode: "heuristic" | "llm") {
  const seenByExtractor: string[] = [];
  const extractor = {
    invoke: async (messages: BaseMessage[]) => {
      const text = String(messages[messages.length - 1]?.content ?? "");
      seenByExtractor.push(text);
      return new AIMessage(JSON.stringify({ facts: [{ subject: "user", attribute: "event", value: text, text: `User said: ${text}` }] }));
    },
  };
  const model = scriptedModel(() => "ok");
  const agent = createAgent({
    model,
    systemPrompt: "S",
    checkpointer: new MemorySaver(),
    middleware: [
      factRecall({ mode, ...(mode === "llm" ? { model: extractor } : {}), promptContextMode: "legacy_system" }),
      windowTrim({ maxMessages: 2 }),
      recall({ promptContextMode: "legacy_system" }),
      piiMiddleware("email", { strategy: "redact" }),
    ],
  });
  const config = { configurable: { thread_id: `pii-${mode}` } };
  for (const content of [SAY, "Nice weather.", "Yes.", "Which newsletter did I register for?"]) {
    await agent.invoke({ messages: [new HumanMessage(content)] }, config);
  }
  const state = (await agent.graph.getState(config)).values as { messages: BaseMessage[]; [FACTS_STATE_KEY]: FactSlot };
  return { state, model, seenByExtractor };
}

describe.each(["heuristic", "llm"] as const)("factRecall %s mode with piiMiddleware listed after it", (mode) => {
  it("stores, extracts from and recalls only the redacted message", async () => {
    const { state, model, seenByExtractor } = await run(mode);
    const stored = state.messages.map((m) => String(m.content)).join("\n");
    expect(stored).not.toContain(EMAIL);
    expect(stored).toContain("[REDACTED_EMAIL]");
    const facts = JSON.stringify(state[FACTS_STATE_KEY].facts);
    expect(state[FACTS_STATE_KEY].facts.length).toBeGreaterThan(0);
    expect(facts).not.toContain(EMAIL);
    for (const text of seenByExtractor) expect(text).not.toContain(EMAIL);
    for (const call of model.calls) {
      const sent = [systemText(call.messages[0] as SystemMessage), ...call.messages.map((m) => String(m.content))].join("\n");
      expect(sent).not.toContain(EMAIL);
    }
    // The recalled first message is there, redacted.
    expect(systemText(model.calls.at(-1)?.messages[0] as SystemMessage)).toContain("[REDACTED_EMAIL]");
  });
});
