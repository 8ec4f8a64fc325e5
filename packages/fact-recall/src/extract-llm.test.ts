import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MemorySaver } from "@langchain/langgraph";
import { systemText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { extractFactsWithModel, FactExtractionError, INTERNAL_CALL_TAGS, llmFactsSchema, parseFactsAnswer } from "./extract-llm.js";
import { factRecall } from "./fact-recall.js";
import { FACTS_STATE_KEY, type FactSlot } from "./fact-store.js";

const GOOD =
  '```json\n{"facts":[{"subject":"user","attribute":"residence","value":"Busan","text":"The user lives in Busan."},{"subject":"user","attribute":"likes","value":"jazz","text":"The user likes jazz."}]}\n```';

function recordingLogger() {
  const warnings: Array<{ message: string; fields?: Record<string, unknown> }> = [];
  return {
    warnings,
    logger: { info() {}, warn: (message: string, fields?: Record<string, unknown>) => warnings.push({ message, fields }) },
  };
}

describe("extractFactsWithModel", () => {
  it("parses fenced JSON into candidates, tagged as an internal call", async () => {
    const model = fakeModel().respond(new AIMessage(GOOD));
    let seen: Record<string, unknown> | undefined;
    const spy = {
      invoke: (input: unknown, options?: Record<string, unknown>) => {
        seen = options;
        return model.invoke(input as never, options);
      },
    };
    const facts = await extractFactsWithModel(spy, "I moved to Busan and I like jazz.", { timeoutMs: 1000 });
    expect(facts).toEqual([
      { subject: "user", attribute: "residence", value: "Busan", text: "The user lives in Busan.", language: "en", multi: false },
      {
        subject: "user",
        attribute: "likes",
        value: "jazz",
        text: "The user likes jazz.",
        language: "en",
        multi: true,
        keyAttribute: "preference",
      },
    ]);
    expect(seen).toMatchObject({
      tags: INTERNAL_CALL_TAGS,
      runName: "threadwise/fact-recall:extract",
      metadata: { threadwise_internal: "threadwise/fact-recall:extract" },
    });
    expect(seen?.signal).toBeInstanceOf(AbortSignal);
    expect(INTERNAL_CALL_TAGS).toEqual(expect.arrayContaining(["threadwise:internal", "nostream"]));
    expect((model.calls[0]?.messages as BaseMessage[] | undefined)?.at(-1)?.content).toBe("I moved to Busan and I like jazz.");
  });

  // A model's answer can hold a lone UTF-16 surrogate (cut mid-emoji, or a `\ud83c` escape JSON
  // allows); stored as it came, the fact placed in a later request had Anthropic and Gemini refuse it.
  it("keeps a fact's text well-formed: a lone surrogate becomes U+FFFD", async () => {
    const answer = '{"facts":[{"subject":"user","attribute":"likes","value":"ramen \\ud83c","text":"The user likes ramen \\ud83c"}]}';
    const [fact] = await extractFactsWithModel(fakeModel().respond(new AIMessage(answer)), "I like ramen", { timeoutMs: 1000 });
    expect(fact).toMatchObject({ value: "ramen \uFFFD", text: "The user likes ramen \uFFFD" });
  });

  it.each([
    ["bad_json", () => fakeModel().respond(new AIMessage("Sure! The user lives in Busan."))],
    ["schema_mismatch", () => fakeModel().respond(new AIMessage('{"facts":[{"subject":"user","value":"Busan"}]}'))],
    ["model_error", () => fakeModel().respond(new Error("rate limited"))],
    ["timeout", () => ({ invoke: () => new Promise(() => {}) })],
  ])("throws FactExtractionError(%s)", async (reason, make) => {
    const error = await extractFactsWithModel(make(), "I live in Busan.", { timeoutMs: 50 }).catch((e: unknown) => e);
    expect(FactExtractionError.isInstance(error)).toBe(true);
    expect((error as FactExtractionError).reason).toBe(reason);
  });

  // A value of spaces alone passed min(1) and was trimmed to "" afterwards: a fact with an empty value.
  it.each([
    ["value", "en", { subject: "user", attribute: "residence", value: "   ", text: "The user lives in Busan." }],
    ["value", "ko", { subject: "user", attribute: "residence", value: "\u3000 ", text: "사용자는 부산에 산다." }],
    ["attribute", "ko", { subject: "user", attribute: " \t", value: "부산", text: "사용자는 부산에 산다." }],
    ["subject", "en", { subject: "  ", attribute: "residence", value: "Busan", text: "The user lives in Busan." }],
    ["text", "en", { subject: "user", attribute: "residence", value: "Busan", text: "\n " }],
  ])("refuses a %s of whitespace alone (%s) as schema_mismatch naming the field", async (field, _language, fact) => {
    const answer = JSON.stringify({ facts: [fact] });
    const error = await extractFactsWithModel(fakeModel().respond(new AIMessage(answer)), "I live in Busan. 부산에 살아요.", {
      timeoutMs: 1000,
    }).catch((e: unknown) => e);
    expect(FactExtractionError.isInstance(error)).toBe(true);
    expect((error as FactExtractionError).reason).toBe("schema_mismatch");
    expect((error as FactExtractionError).message).toContain(`facts.0.${field}`);
    expect(llmFactsSchema.safeParse({ facts: [fact] }).success).toBe(false);
  });

  it("still takes a value with spaces around it, trimmed (en/ko)", async () => {
    const answer = JSON.stringify({
      facts: [
        { subject: "user", attribute: "residence", value: "  Busan ", text: " The user lives in Busan. " },
        { subject: "user", attribute: "likes", value: "\u3000국밥 ", text: "사용자는 국밥을 좋아한다." },
      ],
    });
    const facts = await extractFactsWithModel(fakeModel().respond(new AIMessage(answer)), "I live in Busan. 국밥 좋아해요.", {
      timeoutMs: 1000,
    });
    expect(facts.map((f) => [f.value, f.text])).toEqual([
      ["Busan", "The user lives in Busan."],
      ["국밥", "사용자는 국밥을 좋아한다."],
    ]);
  });
});

describe("factRecall llm mode", () => {
  async function run(extractor: ReturnType<typeof fakeModel>) {
    const { warnings, logger } = recordingLogger();
    const model = scriptedModel(() => "ok");
    const agent = createAgent({
      model,
      systemPrompt: "S",
      checkpointer: new MemorySaver(),
      middleware: [factRecall({ mode: "llm", model: extractor, logger, promptContextMode: "legacy_system" })],
    });
    const config = { configurable: { thread_id: "llm" } };
    await agent.invoke({ messages: [new HumanMessage("I moved to Busan and I like jazz.")] }, config);
    await agent.invoke({ messages: [new HumanMessage("Where do I live?")] }, config);
    const slot = (await agent.graph.getState(config)).values[FACTS_STATE_KEY] as FactSlot;
    return { warnings, slot, system: systemText(model.calls[1]?.messages[0] as never) };
  }

  it("stores the model's facts when it answers good JSON", async () => {
    const { warnings, slot, system } = await run(fakeModel().respond(new AIMessage(GOOD)).respond(new AIMessage('{"facts":[]}')));
    expect(warnings).toEqual([]);
    expect(slot.facts.map((f) => [f.attribute, f.value, f.origin])).toEqual([
      ["residence", "Busan", "llm"],
      ["likes", "jazz", "llm"],
    ]);
    expect(system).toContain("- The user lives in Busan.");
  });

  it.each([
    ["bad_json", new AIMessage("not json at all")],
    ["model_error", new Error("boom")],
  ])("falls back to the rules with a warning on %s", async (reason, answer) => {
    const { warnings, slot, system } = await run(fakeModel().respond(answer).respond(new AIMessage('{"facts":[]}')));
    expect(warnings).toEqual([{ message: "fact-recall: LLM extraction failed, used the rules for this message", fields: { reason } }]);
    expect(slot.facts.map((f) => [f.attribute, f.value, f.origin])).toEqual([
      ["residence", "Busan", "heuristic"],
      ["likes", "jazz", "heuristic"],
    ]);
    expect(system).toContain("- User moved to Busan and lives there");
  });

  it("uses the agent's own model when no model is given, and writes through a Command", async () => {
    const model = scriptedModel((messages) =>
      systemText(messages[0] as never).startsWith("You extract durable facts")
        ? '{"facts":[{"subject":"user","attribute":"work","value":"nurse","text":"The user works as a nurse."}]}'
        : "ok",
    );
    const agent = createAgent({
      model,
      systemPrompt: "S",
      checkpointer: new MemorySaver(),
      middleware: [factRecall({ mode: "llm", promptContextMode: "legacy_system" })],
    });
    const config = { configurable: { thread_id: "own" } };
    await agent.invoke({ messages: [new HumanMessage("I'm a nurse.")] }, config);
    await agent.invoke({ messages: [new HumanMessage("What is my job?")] }, config);
    const slot = (await agent.graph.getState(config)).values[FACTS_STATE_KEY] as FactSlot;
    expect(slot.facts.map((f) => [f.attribute, f.value, f.origin])).toEqual([["work", "nurse", "llm"]]);
    const answers = model.calls.filter((c) => !systemText(c.messages[0] as never).startsWith("You extract"));
    expect(answers).toHaveLength(2);
    expect(systemText(answers[1]?.messages[0] as never)).toContain("- The user works as a nurse.");
    expect(model.calls.filter((c) => systemText(c.messages[0] as never).startsWith("You extract"))).toHaveLength(2);
  });
});

describe("LLM answers: structured output when offered, a tolerant parser otherwise (issue 15)", () => {
  const facts = { facts: [{ subject: "user", attribute: "residence", value: "Busan", text: "The user lives in Busan." }] };

  it("uses withStructuredOutput with the facts schema when the model has it", async () => {
    const asked: unknown[] = [];
    const model = {
      invoke: async () => {
        throw new Error("the text path must not be used");
      },
      withStructuredOutput: (schema: unknown, config: unknown) => {
        asked.push(schema, config);
        return { invoke: async () => facts };
      },
    };
    const out = await extractFactsWithModel(model, "I moved to Busan.", { timeoutMs: 1000 });
    expect(out.map((f) => [f.attribute, f.value])).toEqual([["residence", "Busan"]]);
    expect(asked[0]).toBe(llmFactsSchema);
    expect(asked[1]).toEqual({ name: "extract_facts" });
  });

  it("falls back to the text prompt when structured output cannot be built or fails, and remembers it", async () => {
    let structuredCalls = 0;
    const model = {
      invoke: async () => new AIMessage(JSON.stringify(facts)),
      withStructuredOutput: () => ({
        invoke: async () => {
          structuredCalls += 1;
          throw new Error("bindTools is not implemented");
        },
      }),
    };
    for (let i = 0; i < 2; i += 1) {
      const out = await extractFactsWithModel(model, "I moved to Busan.", { timeoutMs: 1000 });
      expect(out.map((f) => f.value)).toEqual(["Busan"]);
    }
    expect(structuredCalls).toBe(1);
    const throwing = {
      invoke: async () => new AIMessage(JSON.stringify(facts)),
      withStructuredOutput: () => {
        throw new Error("no");
      },
    };
    expect((await extractFactsWithModel(throwing, "x", { timeoutMs: 1000 })).map((f) => f.value)).toEqual(["Busan"]);
  });

  it.each([
    ["a <think> block", `<think>The user says they moved. {"not": "this"}</think>\n${JSON.stringify(facts)}`],
    ["an unclosed reasoning preamble", `Let me think about it...</think>${JSON.stringify(facts)}`],
    ["prose around the JSON", `Sure! Here are the facts:\n${JSON.stringify(facts)}\nLet me know if you need more.`],
    ["a fenced block after prose", `Here you go:\n\`\`\`json\n${JSON.stringify(facts)}\n\`\`\``],
    ["a bare list", `[${JSON.stringify(facts.facts[0])}]`],
    [
      "braces inside strings",
      `Note {this}: {"facts":[{"subject":"user","attribute":"residence","value":"Busan","text":"The user lives in Busan {city}."}]}`,
    ],
  ])("parses %s", (_name, answer) => {
    const parsed = llmFactsSchema.parse(parseFactsAnswer(answer));
    expect(parsed.facts[0]?.value).toBe("Busan");
  });

  it("says bad_json when there is no JSON at all", () => {
    expect(() => parseFactsAnswer("<think>hmm</think> I could not find any facts.")).toThrow(FactExtractionError);
  });
});
