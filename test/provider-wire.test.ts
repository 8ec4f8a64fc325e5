/**
 * The wire check (test/support/provider-wire.ts): each rule fires on a request the API refuses and
 * stays quiet on a valid one, through the real converters; English and Korean text.
 */
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { type WireApi, wireViolations } from "./support/provider-wire.js";

const call = (id: string) => ({ id, name: "lookup", args: { n: 1 }, type: "tool_call" as const });
const rules = (messages: BaseMessage[], api: WireApi) => [...new Set(wireViolations(messages, [api]).map((v) => v.rule))].sort();

describe.each([
  ["en", "What is the weather in Busan?", "It is sunny."],
  ["ko", "부산 날씨 어때요?", "맑아요."],
] as const)("wire check (%s)", (_lang, question, answer) => {
  const system = new SystemMessage("You are helpful.");

  it("a valid tool loop passes every API", () => {
    const request = [
      system,
      new HumanMessage(question),
      new AIMessage({ content: "", tool_calls: [call("c1"), call("c2")] }),
      new ToolMessage({ content: "1", tool_call_id: "c1", name: "lookup" }),
      new ToolMessage({ content: "2", tool_call_id: "c2", name: "lookup" }),
      new AIMessage(answer),
      new HumanMessage(question),
    ];
    expect(wireViolations(request)).toEqual([]);
  });

  it("a result without its call: every API", () => {
    const request = [system, new HumanMessage(question), new ToolMessage({ content: "1", tool_call_id: "c9", name: "lookup" })];
    expect(rules(request, "openai-chat")).toEqual(["tool_pairing"]);
    expect(rules(request, "openai-responses")).toEqual(["tool_pairing"]);
    expect(rules(request, "anthropic")).toEqual(["tool_pairing"]);
    expect(rules(request, "gemini")).toEqual(["tool_pairing"]);
  });

  it("a call without its result: every API", () => {
    const request = [
      system,
      new HumanMessage(question),
      new AIMessage({ content: "", tool_calls: [call("c1")] }),
      new HumanMessage(question),
    ];
    for (const api of ["openai-chat", "openai-responses", "anthropic", "gemini"] as const)
      expect(rules(request, api), api).toEqual(["tool_pairing"]);
  });

  it("Anthropic and Gemini: the first turn is the user's", () => {
    const request = [system, new AIMessage(answer), new HumanMessage(question)];
    expect(rules(request, "anthropic")).toEqual(["first_turn_role"]);
    expect(rules(request, "gemini")).toEqual(["first_turn_role"]);
    expect(rules(request, "openai-chat")).toEqual([]);
  });

  it("Anthropic: a blank text block, a system message inside, a whitespace-ended prefill, five cache marks", () => {
    expect(
      rules(
        [
          new HumanMessage({
            content: [
              { type: "text", text: " " },
              { type: "text", text: question },
            ],
          }),
          new AIMessage(answer),
        ],
        "anthropic",
      ),
    ).toEqual(["blank_text_block"]);
    expect(rules([system, new HumanMessage(question), new SystemMessage("late"), new HumanMessage(question)], "anthropic")).toContain(
      "system_in_messages",
    );
    expect(rules([new HumanMessage(question), new AIMessage(`${answer} `)], "anthropic")).toEqual(["prefill_trailing_whitespace"]);
    const marked = (text: string) => new HumanMessage({ content: [{ type: "text", text, cache_control: { type: "ephemeral" } }] });
    const five = [
      marked(question),
      new AIMessage(answer),
      marked(question),
      new AIMessage(answer),
      marked(question),
      new AIMessage(answer),
      marked(question),
      new AIMessage(answer),
      marked(question),
    ];
    expect(rules(five, "anthropic")).toEqual(["cache_control_count"]);
    expect(rules(five.slice(0, 7), "anthropic")).toEqual([]);
  });

  it("OpenAI Responses: one stored answer sent twice is a duplicate item id", () => {
    const stored = () =>
      new AIMessage({
        content: answer,
        id: "msg_abc",
        response_metadata: {
          output: [
            { type: "message", id: "msg_abc", role: "assistant", content: [{ type: "output_text", text: answer, annotations: [] }] },
          ],
        },
      });
    const request = [new HumanMessage(question), stored(), new HumanMessage(question), stored(), new HumanMessage(question)];
    expect(rules(request, "openai-responses")).toEqual(["duplicate_item_id"]);
    expect(rules(request.slice(0, 3), "openai-responses")).toEqual([]);
  });

  it("Gemini: a function call turn right after a model turn", () => {
    const request = [
      new HumanMessage(question),
      new AIMessage(answer),
      new AIMessage({ content: "", tool_calls: [call("c1")] }),
      new ToolMessage({ content: "1", tool_call_id: "c1", name: "lookup" }),
    ];
    expect(rules(request, "gemini")).toEqual(["tool_pairing"]);
  });

  it("OpenAI Chat Completions: a name outside [a-zA-Z0-9_-]+ (a message's, a tool call's) and one call id twice in a message", () => {
    const named = [new HumanMessage({ content: question, name: "Kim Ji-woo" }), new AIMessage({ content: answer, name: "travel agent" })];
    expect(rules([...named, new HumanMessage(question)], "openai-chat")).toEqual(["name_pattern"]);
    expect(wireViolations([...named, new HumanMessage(question)], ["openai-chat"]).map((v) => v.at)).toEqual([0, 1]);
    const dotted = [
      new HumanMessage(question),
      new AIMessage({ content: "", tool_calls: [{ ...call("c1"), name: "web.search" }] }),
      new ToolMessage({ content: "1", tool_call_id: "c1" }),
    ];
    expect(rules(dotted, "openai-chat")).toEqual(["name_pattern"]);
    const twice = [
      new HumanMessage(question),
      new AIMessage({ content: "", tool_calls: [call("c1"), call("c1")] }),
      new ToolMessage({ content: "1", tool_call_id: "c1", name: "lookup" }),
      new ToolMessage({ content: "2", tool_call_id: "c1", name: "lookup" }),
    ];
    expect(rules(twice, "openai-chat")).toEqual(["duplicate_tool_call_id", "tool_pairing"]);
    expect(
      rules([new HumanMessage({ content: question, name: "ji_woo-2" }), new AIMessage({ content: answer, name: "model" })], "openai-chat"),
    ).toEqual([]);
  });

  it("an image in a system or assistant message: OpenAI Chat Completions' parts and Anthropic's system refuse it", () => {
    const image = { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo" } };
    const system = new SystemMessage({ content: [{ type: "text", text: answer }, image] as never });
    expect(rules([system, new HumanMessage(question)], "openai-chat")).toEqual(["content_parts"]);
    expect(rules([system, new HumanMessage(question)], "anthropic")).toEqual(["content_parts"]);
    const assistant = new AIMessage({ content: [{ type: "text", text: answer }, image] as never });
    expect(rules([new HumanMessage(question), assistant, new HumanMessage(question)], "openai-chat")).toEqual(["content_parts"]);
    const user = new HumanMessage({ content: [{ type: "text", text: question }, image] as never });
    expect(rules([new SystemMessage(answer), user], "openai-chat")).toEqual([]);
    expect(rules([new SystemMessage(answer), user], "anthropic")).toEqual([]);
  });

  it("a converter that throws is a violation; another provider's own blocks are not Gemini's to send", () => {
    const removal = { getType: () => "remove", _getType: () => "remove", content: "", lc_serializable: true } as unknown as BaseMessage;
    expect(wireViolations([new HumanMessage(question), removal], ["anthropic"]).map((v) => v.rule)).toEqual(["converter_throws"]);
    const bedrock = new AIMessage({
      content: [
        { type: "reasoning_content", reasoningText: { text: "hm", signature: "s" } },
        { type: "text", text: answer },
      ] as never,
    });
    expect(rules([new HumanMessage(question), bedrock, new HumanMessage(question)], "gemini")).toEqual([]);
    expect(
      rules(
        [
          new HumanMessage(question),
          new AIMessage({ content: [{ type: "tool_use", id: "c1", name: "lookup", input: { n: 1 } }] as never, tool_calls: [call("c1")] }),
          new ToolMessage({ content: "1", tool_call_id: "c1", name: "lookup" }),
        ],
        "gemini",
      ),
    ).toEqual([]);
  });
});
