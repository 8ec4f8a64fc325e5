import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { isContextMessage, systemText, ThreadwiseConfigError, tailContextOf, withoutTailContext } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { factRecall, resolveFactRecallConfig } from "./fact-recall.js";
import { FACTS_STATE_KEY, type FactSlot } from "./fact-store.js";
import { englishSessions } from "./fixtures/english-chat.js";
import { koreanSessions } from "./fixtures/korean-chat.js";

const text = (m: BaseMessage) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));
const systemOf = (messages: BaseMessage[]) => (messages[0]?.getType() === "system" ? systemText(messages[0] as never) : "");

async function chat(agent: ReturnType<typeof createAgent>, threadId: string, messages: string[]) {
  for (const content of messages) await agent.invoke({ messages: [new HumanMessage(content)] }, { configurable: { thread_id: threadId } });
}

async function slotOf(agent: ReturnType<typeof createAgent>, threadId: string): Promise<FactSlot | undefined> {
  const state = await agent.graph.getState({ configurable: { thread_id: threadId } });
  return (state.values as Record<string, unknown>)[FACTS_STATE_KEY] as FactSlot | undefined;
}

describe("factRecall through createAgent", () => {
  it("recalls the moved-to city across three English sessions (legacy_system placement)", async () => {
    const model = scriptedModel(() => "ok");
    const agent = createAgent({
      model,
      systemPrompt: "You are a helpful assistant.",
      checkpointer: new MemorySaver(),
      middleware: [factRecall({ promptContextMode: "legacy_system" })],
    });
    await chat(agent, "en", englishSessions.flat());
    await chat(agent, "en", ["Where do I live these days?"]);
    const last = model.calls.at(-1)?.messages as BaseMessage[];
    const system = systemOf(last);
    expect(system).toContain("You are a helpful assistant.\n\n[Known facts about the user]\n- User moved to Busan and lives there");
    // The old city is history, not a second residence: named as what held before.
    expect(system).toContain("- User moved to Busan and lives there (before: Seoul)");
    expect(system).not.toContain("lives in Seoul");
    expect(last.filter(isContextMessage)).toEqual([]);
    const slot = await slotOf(agent, "en");
    expect(slot?.facts.filter((f) => f.subject === "user")).toHaveLength(20);
    expect(slot?.turn).toBe(englishSessions.flat().length + 1);
    // The stored thread holds only what was said: no context block, no rewritten message.
    const state = await agent.graph.getState({ configurable: { thread_id: "en" } });
    expect((state.values.messages as BaseMessage[]).map(text)).toContain("I moved to Busan last month.");
    expect((state.values.messages as BaseMessage[]).some((m) => text(m).includes("Known facts"))).toBe(false);
  });

  it("recalls Korean facts for a Korean follow-up", async () => {
    const model = scriptedModel(() => "네");
    const agent = createAgent({
      model,
      systemPrompt: "친절한 비서입니다.",
      checkpointer: new MemorySaver(),
      middleware: [factRecall({ promptContextMode: "legacy_system", maxItems: 1 })],
    });
    await chat(agent, "ko", [...koreanSessions.flat(), "우리 고양이 이름이 뭐였지?"]);
    const system = systemOf(model.calls.at(-1)?.messages as BaseMessage[]);
    expect(system).toContain("[Known facts about the user]\n- 사용자의 반려동물 고양이 이름은 나비");
    expect(system.split("\n- ")).toHaveLength(2);
  });

  it("places nothing when nothing is relevant", async () => {
    const model = scriptedModel(() => "ok");
    const agent = createAgent({
      model,
      systemPrompt: "S",
      checkpointer: new MemorySaver(),
      middleware: [factRecall({ promptContextMode: "legacy_system" })],
    });
    await chat(agent, "t", ["I live in Seoul.", "Thanks, bye!"]);
    expect(systemOf(model.calls.at(-1)?.messages as BaseMessage[])).toBe("S");
  });

  it("never shows a fact from thread A in thread B", async () => {
    const model = scriptedModel(() => "ok");
    const agent = createAgent({
      model,
      systemPrompt: "S",
      checkpointer: new MemorySaver(),
      middleware: [factRecall({ promptContextMode: "legacy_system" })],
    });
    await chat(agent, "A", ["I live in Seoul and I have a dog named Max."]);
    await chat(agent, "B", ["Where do I live? What is my dog called?"]);
    await chat(agent, "A", ["Where do I live?"]);
    const [, bCall, aCall] = model.calls.map((c) => systemOf(c.messages as BaseMessage[]));
    expect(bCall).toBe("S");
    expect(aCall).toContain("- User lives in Seoul");
    expect((await slotOf(agent, "B"))?.facts).toEqual([]);
  });

  it("stable_tail keeps the system prefix byte-identical while facts change", async () => {
    const model = scriptedModel(() => "ok");
    const agent = createAgent({
      model,
      systemPrompt: "Stable prompt.",
      checkpointer: new MemorySaver(),
      middleware: [factRecall({ promptContextMode: "stable_tail" })],
    });
    await chat(agent, "st", ["I live in Seoul.", "Where do I live?", "I moved to Busan.", "Where do I live now?"]);
    const calls = model.calls.map((c) => c.messages as BaseMessage[]);
    expect(new Set(calls.map(systemOf))).toEqual(new Set(["Stable prompt."]));
    const contexts = calls.map((m) => m.map(tailContextOf).filter((c) => c !== undefined));
    expect(contexts[1]?.[0]).toContain("- User lives in Seoul");
    expect(contexts[3]?.[0]).toContain("- User moved to Busan and lives there");
    // The context is one more block on the newest user message, and is never stored.
    const last = calls[3] as BaseMessage[];
    expect(tailContextOf(last[last.length - 1] as BaseMessage)).toContain("[Known facts about the user]");
    expect(withoutTailContext(last[last.length - 1] as BaseMessage).content).toBe("Where do I live now?");
    const state = await agent.graph.getState({ configurable: { thread_id: "st" } });
    expect((state.values.messages as BaseMessage[]).some(isContextMessage)).toBe(false);
  });

  it("extracts once per user message, not on every model call of a tool loop", async () => {
    const extractor = fakeModel();
    extractor.respond(
      new AIMessage('{"facts":[{"subject":"user","attribute":"residence","value":"Seoul","text":"The user lives in Seoul."}]}'),
    );
    const lookup = tool(async () => "sunny", { name: "weather", description: "weather", schema: z.object({ city: z.string() }) });
    const model = fakeModel()
      .respondWithTools([{ name: "weather", args: { city: "Seoul" }, id: "c1" }])
      .respondWithTools([{ name: "weather", args: { city: "Seoul" }, id: "c2" }])
      .respond(new AIMessage("It is sunny in Seoul."));
    const agent = createAgent({
      model,
      tools: [lookup],
      systemPrompt: "S",
      checkpointer: new MemorySaver(),
      middleware: [factRecall({ mode: "llm", model: extractor, promptContextMode: "legacy_system" })],
    });
    await chat(agent, "loop", ["I live in Seoul, what's the weather in Seoul?"]);
    expect(extractor.calls).toHaveLength(1);
    expect(model.calls).toHaveLength(3);
    for (const call of model.calls) expect(systemOf(call.messages as BaseMessage[])).toContain("- The user lives in Seoul.");
  });

  it("recalls for the user's words in an Anthropic-native tool loop, not the tool_result carrier after them (en, ko)", async () => {
    // Regression: the carrier (a user message of only tool_result blocks, text "") was read as the
    // newest user message: its empty query recalled nothing, and it counted as a user turn.
    const cases = [
      { lang: "en", said: englishSessions.flat(), asked: "Where do I live these days?", fact: "- User moved to Busan and lives there" },
      { lang: "ko", said: koreanSessions.flat(), asked: "우리 고양이 이름이 뭐였지?", fact: "- 사용자의 반려동물 고양이 이름은 나비" },
    ];
    for (const { lang, said, asked, fact } of cases) {
      const model = scriptedModel(() => "ok");
      const agent = createAgent({
        model,
        systemPrompt: "S",
        checkpointer: new MemorySaver(),
        middleware: [factRecall({ promptContextMode: "legacy_system" })],
      });
      await chat(agent, lang, said);
      await agent.invoke(
        {
          messages: [
            new HumanMessage({ id: `${lang}-q`, content: asked }),
            new AIMessage({
              id: `${lang}-c`,
              content: [{ type: "tool_use", id: "toolu_1", name: "notes", input: {} }] as never,
              tool_calls: [],
            }),
            new HumanMessage({ id: `${lang}-r`, content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "no notes" }] as never }),
          ],
        },
        { configurable: { thread_id: lang } },
      );
      expect(systemOf(model.calls.at(-1)?.messages as BaseMessage[])).toContain(fact);
      const slot = await slotOf(agent, lang);
      expect(slot?.turn).toBe(said.length + 1);
      expect(slot?.cursor).toBe(`${lang}-q`);
    }
  });

  it("writes no state and places nothing with mode off", async () => {
    const model = scriptedModel(() => "ok");
    const agent = createAgent({ model, systemPrompt: "S", checkpointer: new MemorySaver(), middleware: [factRecall({ mode: "off" })] });
    await chat(agent, "off", ["I live in Seoul.", "Where do I live?"]);
    expect(systemOf(model.calls[1]?.messages as BaseMessage[])).toBe("S");
    expect((await slotOf(agent, "off"))?.facts ?? []).toEqual([]);
  });
});

describe("factRecall graph footprint (issue 16)", () => {
  it("registers no node of its own unless structuredResponse is set", () => {
    const plain = factRecall({ logger: false });
    expect(plain.beforeModel).toBeUndefined();
    expect(plain.afterModel).toBeUndefined();
    expect(factRecall({ structuredResponse: true, logger: false }).afterModel).toBeDefined();
  });

  it("stores the facts of a turn that ends in a structured response when structuredResponse is set", async () => {
    const answer = z.object({ reply: z.string() }).meta({ title: "Answer", description: "The answer." });
    let turn = 0;
    const model = scriptedModel(() => {
      turn += 1;
      return new AIMessage({
        content: "",
        tool_calls: [{ id: `a${turn}`, name: "Answer", args: { reply: `r${turn}` }, type: "tool_call" }],
      });
    });
    const agent = createAgent({
      model,
      responseFormat: answer,
      checkpointer: new MemorySaver(),
      middleware: [factRecall({ structuredResponse: true, logger: false })],
    });
    const result = await agent.invoke({ messages: [new HumanMessage("I live in Seoul.")] }, { configurable: { thread_id: "structured" } });
    expect((result as { structuredResponse?: { reply: string } }).structuredResponse?.reply).toBe("r1");
    expect((await slotOf(agent, "structured"))?.facts.map((f) => f.value)).toContain("Seoul");
  });

  it("keeps the structured response and warns once when structuredResponse is unset", async () => {
    const answer = z.object({ reply: z.string() }).meta({ title: "Answer", description: "The answer." });
    const warnings: string[] = [];
    const model = scriptedModel(
      () => new AIMessage({ content: "", tool_calls: [{ id: "a", name: "Answer", args: { reply: "r" }, type: "tool_call" }] }),
    );
    const agent = createAgent({
      model,
      responseFormat: answer,
      checkpointer: new MemorySaver(),
      middleware: [factRecall({ logger: { info: () => {}, warn: (m: string) => warnings.push(m) } })],
    });
    for (const content of ["I live in Seoul.", "I have a dog named Coco."]) {
      const result = await agent.invoke({ messages: [new HumanMessage(content)] }, { configurable: { thread_id: "unset" } });
      expect((result as { structuredResponse?: { reply: string } }).structuredResponse?.reply).toBe("r");
    }
    expect(warnings).toEqual(["fact-recall: could not attach the fact write to a structured response; pass `structuredResponse: true`"]);
  });
});

describe("factRecall options", () => {
  it("reads env twins and defaults", () => {
    expect(resolveFactRecallConfig({}, {})).toMatchObject({ mode: "heuristic", maxItems: 3, maxFacts: 200 });
    expect(resolveFactRecallConfig({}, { MEMORY_FACTS_MODE: "llm", MEMORY_FACT_RECALL_MAX_ITEMS: "5" })).toMatchObject({
      mode: "llm",
      maxItems: 5,
    });
    expect(resolveFactRecallConfig({ maxItems: 2 }, { MEMORY_FACT_RECALL_MAX_ITEMS: "5" }).maxItems).toBe(2);
  });

  it("names the bad option or variable", () => {
    expect(() => resolveFactRecallConfig({ maxItems: 0 })).toThrow(ThreadwiseConfigError);
    expect(() => resolveFactRecallConfig({ maxHeldFacts: 0 })).toThrow(/maxHeldFacts/);
    expect(resolveFactRecallConfig({}).maxHeldFacts).toBe(51_200);
    expect(() => resolveFactRecallConfig({ maxItems: 0 })).toThrow(/factRecall\.maxItems/);
    expect(() => resolveFactRecallConfig({}, { MEMORY_FACTS_MODE: "rules" })).toThrow(
      /MEMORY_FACTS_MODE: expected one of off \| heuristic \| llm/,
    );
    expect(() => factRecall({ mode: "llm", model: {} as never })).toThrow(/factRecall\.model/);
  });
});
