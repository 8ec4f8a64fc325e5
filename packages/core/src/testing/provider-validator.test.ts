import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent, createMiddleware, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import {
  assertProviderRequest,
  type Provider,
  ProviderRequestError,
  type ProviderRule,
  providerProbe,
  strictModel,
  validateProviderRequest,
  withProviderCheck,
} from "./index.js";

const call = (id: string, name = "lookup") => ({ id, name, args: { q: id }, type: "tool_call" as const });
const ai = (ids: string[], content = "") => new AIMessage({ content, tool_calls: ids.map((id) => call(id)) });
const result = (id: string, content = "ok") => new ToolMessage({ content, tool_call_id: id, name: "lookup" });

/** `provider:rule@index` of each violation, for compact assertions. */
function refusals(messages: BaseMessage[], providers?: Provider[]): string[] {
  return validateProviderRequest(messages, providers ? { providers } : {}).map((v) => `${v.provider}:${v.rule}@${v.index}`);
}

function rulesOf(messages: BaseMessage[], provider: Provider): ProviderRule[] {
  return validateProviderRequest(messages, { providers: [provider] }).map((v) => v.rule);
}

describe("validateProviderRequest", () => {
  it("accepts an ordinary agent request with parallel calls answered in any order", () => {
    const messages = [
      new SystemMessage("Be brief."),
      new HumanMessage("Check 12A and 12B."),
      ai(["call_a", "call_b"]),
      result("call_b"),
      result("call_a"),
      new AIMessage("Both free."),
      new HumanMessage({
        content: [
          { type: "text", text: "좋아요" },
          { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
        ],
      }),
    ];
    expect(refusals(messages)).toEqual([]);
  });

  it("refuses a tool result without its call, for every provider, naming the index", () => {
    const messages = [new HumanMessage("hi"), result("call_x"), new AIMessage("ok")];
    expect(refusals(messages)).toEqual([
      "openai:tool_result_without_call@1",
      "anthropic:tool_result_without_call@1",
      "gemini:tool_result_without_call@1",
      "bedrock:tool_result_without_call@1",
      // Bedrock also sees two user messages in a row (the result is sent with role user).
      "bedrock:consecutive_roles@1",
    ]);
  });

  it("refuses a result answering a call of an older AI message (a cut inside two runs)", () => {
    const messages = [new HumanMessage("hi"), ai(["c1"]), result("c1"), ai(["c2"]), result("c1"), result("c2")];
    expect(rulesOf(messages, "openai")).toEqual(["tool_result_without_call"]);
  });

  it("refuses a call left without a result (rejected or interrupted), at the AI message", () => {
    const messages = [new HumanMessage("hi"), ai(["c1", "c2"]), result("c1"), new HumanMessage("next")];
    expect(refusals(messages, ["openai"])).toEqual(["openai:unanswered_tool_call@1"]);
    // At the very end of the request too.
    expect(refusals([new HumanMessage("hi"), ai(["c1"])], ["anthropic"])).toEqual(["anthropic:unanswered_tool_call@1"]);
    // A system message between the call and its result breaks the pairing.
    expect(rulesOf([new HumanMessage("hi"), ai(["c1"]), new SystemMessage("x"), result("c1")], "openai")).toEqual([
      "unanswered_tool_call",
      "tool_result_without_call",
    ]);
  });

  it("refuses a lone surrogate (half an emoji) in text, a text block or tool call arguments, for Anthropic and Gemini", () => {
    const half = "😀".slice(0, 1);
    expect(refusals([new HumanMessage(`cut ${half}`)])).toEqual(["anthropic:malformed_text@0", "gemini:malformed_text@0"]);
    expect(refusals([new HumanMessage("hi"), ai(["c1"]), result("c1", `${"😀".repeat(3)}${half}`)], ["anthropic"])).toEqual([
      "anthropic:malformed_text@2",
    ]);
    const inBlock = new HumanMessage({ content: [{ type: "text", text: `${half}x` }] });
    expect(rulesOf([inBlock], "gemini")).toEqual(["malformed_text"]);
    const inArgs = new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "lookup", args: { q: half }, type: "tool_call" }] });
    expect(rulesOf([new HumanMessage("hi"), inArgs, result("c1")], "anthropic")).toEqual(["malformed_text"]);
    // Whole pairs, Korean and a low surrogate alone at the start are told apart.
    expect(refusals([new HumanMessage("😀 좋아요 🇰🇷")])).toEqual([]);
    expect(rulesOf([new HumanMessage("😀".slice(1))], "anthropic")).toEqual(["malformed_text"]);
  });

  it("an AI message whose only calls are in additional_kwargs.tool_calls (arguments not valid JSON): OpenAI's converter sends them without results", () => {
    const invalid = new AIMessage({
      content: "Let me look.",
      tool_calls: [],
      invalid_tool_calls: [{ id: "c1", name: "lookup", args: '{"n": 1', error: "bad JSON", type: "invalid_tool_call" }],
      additional_kwargs: { tool_calls: [{ id: "c1", type: "function", function: { name: "lookup", arguments: '{"n": 1' } }] },
    });
    expect(refusals([new HumanMessage("hi"), invalid, new HumanMessage("again")])).toEqual(["openai:unanswered_tool_call@1"]);
  });

  it("Anthropic: a tool_result must name a tool_use of the assistant turn before it (content blocks count as calls; user tool_result blocks as results)", () => {
    // ChatAnthropic stores its calls as `tool_use` content blocks too; an edit that renames or drops
    // the call in `tool_calls` but keeps the block sends both: the block's call has no result.
    const renamed = new AIMessage({
      content: [
        { type: "text", text: "Let me look." },
        { type: "tool_use", id: "toolu_old", name: "lookup", input: { q: "x" } },
      ],
      tool_calls: [call("toolu_new")],
    });
    expect(refusals([new HumanMessage("hi"), renamed, result("toolu_new"), new AIMessage("done")])).toEqual([
      "anthropic:unanswered_tool_call@1",
    ]);
    // A thread imported in Anthropic's own format: the results are `tool_result` blocks of a user message.
    const uses = new AIMessage({ content: [{ type: "tool_use", id: "toolu_1", name: "lookup", input: { q: "x" } }] });
    const answers = (id: string) => new HumanMessage({ content: [{ type: "tool_result", tool_use_id: id, content: "ok" }] });
    expect(refusals([new HumanMessage("hi"), uses, answers("toolu_1"), new AIMessage("done")], ["anthropic"])).toEqual([]);
    // The call cut away (a window starting at the results): the result names no call of the turn before it.
    expect(refusals([new HumanMessage("hi"), new AIMessage("earlier"), answers("toolu_1"), new AIMessage("done")], ["anthropic"])).toEqual([
      "anthropic:tool_result_without_call@2",
    ]);
    // At the start of the request, or naming a call of an older assistant turn.
    expect(refusals([answers("toolu_1"), new AIMessage("done")], ["anthropic"])).toEqual(["anthropic:tool_result_without_call@0"]);
    expect(
      refusals(
        [new HumanMessage("hi"), uses, answers("toolu_1"), new AIMessage("next"), answers("toolu_1"), new AIMessage("done")],
        ["anthropic"],
      ),
    ).toEqual(["anthropic:tool_result_without_call@4"]);
    // The tool_use block and its ToolMessage: accepted by every provider (the block repeats a call of tool_calls).
    const both = new AIMessage({
      content: [{ type: "tool_use", id: "toolu_2", name: "lookup", input: { q: "toolu_2" } }],
      tool_calls: [call("toolu_2")],
    });
    expect(refusals([new HumanMessage("hi"), both, result("toolu_2"), new AIMessage("done")])).toEqual([]);
    // Reported once where the common pairing rule already found it.
    expect(refusals([new HumanMessage("hi"), result("call_x"), new AIMessage("ok")], ["anthropic"])).toEqual([
      "anthropic:tool_result_without_call@1",
    ]);
  });

  it("Anthropic's native format: a tool_calls entry answered by a tool_result block, a tool_use block answered by a ToolMessage; block ids must be unique and portable", () => {
    const answers = (id: string) => new HumanMessage({ content: [{ type: "tool_result", tool_use_id: id, content: "ok" }] });
    const listed = new AIMessage({
      content: [{ type: "tool_use", id: "toolu_1", name: "lookup", input: { q: "x" } }],
      tool_calls: [call("toolu_1")],
    });
    // Anthropic takes the block as the result; the others have no result for the call.
    expect(refusals([new HumanMessage("hi"), listed, answers("toolu_1"), new AIMessage("done")])).toEqual([
      "openai:unanswered_tool_call@1",
      "gemini:unanswered_tool_call@1",
      "bedrock:unanswered_tool_call@1",
    ]);
    const blockOnly = (id: string) => new AIMessage({ content: [{ type: "tool_use", id, name: "lookup", input: { q: "x" } }] });
    expect(refusals([new HumanMessage("hi"), blockOnly("toolu_2"), result("toolu_2"), new AIMessage("done")])).toEqual([
      "openai:tool_result_without_call@2",
      "gemini:tool_result_without_call@2",
      "bedrock:tool_result_without_call@2",
    ]);
    // A native result, then a ToolMessage answering another call of the same AI message: one user
    // turn on Anthropic's wire (`@langchain/anthropic` merges them; test/view.anthropic-native.test.ts
    // checks the converter's payload), which Anthropic takes; the others have no call for the
    // ToolMessage. Was: Anthropic refused it too (`tool_result_without_call@3`).
    const pair = new AIMessage({
      content: [
        { type: "tool_use", id: "toolu_x", name: "lookup", input: { q: "x" } },
        { type: "tool_use", id: "toolu_y", name: "lookup", input: { q: "y" } },
      ],
    });
    const mixed = [new HumanMessage("hi"), pair, answers("toolu_y"), result("toolu_x"), new AIMessage("done")];
    expect(refusals(mixed, ["anthropic"])).toEqual([]);
    expect(refusals(mixed)).toEqual([
      "openai:tool_result_without_call@3",
      "gemini:tool_result_without_call@3",
      "bedrock:tool_result_without_call@3",
      "bedrock:consecutive_roles@3",
    ]);
    // The user's words beside the native result end the turn: a ToolMessage after them answers nothing.
    const worded = new HumanMessage({
      content: [
        { type: "tool_result", tool_use_id: "toolu_y", content: "ok" },
        { type: "text", text: "and x?" },
      ],
    });
    expect(refusals([new HumanMessage("hi"), pair, worded, result("toolu_x")], ["anthropic"])).toContain(
      "anthropic:tool_result_without_call@3",
    );
    // `tool_use ids must be unique` and the id pattern hold for block ids as for tool_calls.
    const twice = [
      new HumanMessage("hi"),
      blockOnly("call_0"),
      answers("call_0"),
      new AIMessage("a"),
      new HumanMessage("b"),
      blockOnly("call_0"),
      answers("call_0"),
    ];
    expect(refusals(twice, ["anthropic"])).toEqual(["anthropic:tool_call_id@5"]);
    expect(refusals([new HumanMessage("hi"), blockOnly("functions.lookup:0"), answers("functions.lookup:0")], ["anthropic"])).toEqual([
      "anthropic:tool_call_id@1",
    ]);
  });

  it("refuses a second result for one call", () => {
    const messages = [new HumanMessage("hi"), ai(["c1"]), result("c1"), result("c1", "again")];
    expect(rulesOf(messages, "bedrock")).toEqual(["duplicate_tool_result"]);
  });

  it("a call id repeated across rounds (as in the tau-bench data): Anthropic refuses it, the others take it", () => {
    // Anthropic: `tool_use ids must be unique` across the request (https://github.com/NVIDIA-NeMo/Switchyard/issues/502).
    const messages = [new HumanMessage("hi"), ai(["c1"]), result("c1"), ai(["c1"]), result("c1"), new AIMessage("done")];
    expect(refusals(messages)).toEqual(["anthropic:tool_call_id@3"]);
  });

  it("system messages: OpenAI takes any number anywhere; the others one, leading", () => {
    const two = [new SystemMessage("a"), new SystemMessage("b"), new HumanMessage("hi")];
    expect(rulesOf(two, "openai")).toEqual([]);
    expect(rulesOf(two, "anthropic")).toEqual(["system_count", "system_position"]);
    const middle = [new HumanMessage("hi"), new AIMessage("yo"), new SystemMessage("rule"), new HumanMessage("again")];
    expect(rulesOf(middle, "openai")).toEqual([]);
    for (const p of ["anthropic", "gemini", "bedrock"] as const) expect(rulesOf(middle, p)).toContain("system_position");
  });

  it("the first non-system message must be the user's, except for OpenAI", () => {
    const messages = [new SystemMessage("s"), new AIMessage("Hello!"), new HumanMessage("hi")];
    expect(rulesOf(messages, "openai")).toEqual([]);
    expect(refusals(messages, ["anthropic", "gemini", "bedrock"])).toEqual([
      "anthropic:first_message_role@1",
      "gemini:first_message_role@1",
      "bedrock:first_message_role@1",
    ]);
  });

  it("alternation: Bedrock refuses two user messages in a row (also after tool results), Anthropic and OpenAI take them", () => {
    const users = [new HumanMessage("a"), new HumanMessage("b")];
    expect(rulesOf(users, "bedrock")).toEqual(["consecutive_roles"]);
    expect(rulesOf(users, "anthropic")).toEqual([]);
    expect(rulesOf(users, "openai")).toEqual([]);
    expect(rulesOf(users, "gemini")).toEqual([]);
    const afterResults = [new HumanMessage("a"), ai(["c1", "c2"]), result("c1"), result("c2"), new HumanMessage("b")];
    expect(refusals(afterResults, ["bedrock"])).toEqual(["bedrock:consecutive_roles@4"]);
  });

  it("Gemini: a model turn with function calls must follow a user turn or function results", () => {
    const messages = [new HumanMessage("a"), new AIMessage("Let me look."), ai(["c1"]), result("c1")];
    expect(rulesOf(messages, "gemini")).toEqual(["consecutive_roles"]);
    expect(rulesOf(messages, "anthropic")).toEqual([]);
    expect(rulesOf(messages, "bedrock")).toEqual(["consecutive_roles"]);
  });

  it("empty content: refused by Anthropic, Gemini and Bedrock; a final empty AI message only by Gemini and Bedrock", () => {
    const emptyUser = [new HumanMessage(""), new AIMessage("ok")];
    expect(refusals(emptyUser, ["openai", "anthropic", "gemini", "bedrock"])).toEqual([
      "anthropic:empty_content@0",
      "gemini:empty_content@0",
      "bedrock:empty_content@0",
    ]);
    const emptyAi = [new HumanMessage("a"), new AIMessage(""), new HumanMessage("b")];
    expect(rulesOf(emptyAi, "anthropic")).toEqual(["empty_content"]);
    expect(rulesOf([new HumanMessage("a"), new AIMessage("   ")], "anthropic")).toEqual([]);
    expect(rulesOf([new HumanMessage("a"), new AIMessage("   ")], "gemini")).toEqual(["empty_content"]);
    // An AI message with calls only is fine; a blank text block next to an image is not (Anthropic).
    expect(refusals([new HumanMessage("a"), ai(["c1"]), result("c1", "")])).toEqual([]);
    const blank = new HumanMessage({
      content: [
        { type: "text", text: " " },
        { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
      ],
    });
    expect(rulesOf([blank], "anthropic")).toEqual(["empty_content"]);
    // Bedrock Converse: "The text field in the ContentBlock object at messages.0.content.0 is blank".
    expect(rulesOf([blank], "bedrock")).toEqual(["empty_content"]);
    expect(rulesOf([blank], "openai")).toEqual([]);
    // An AI message's blank block: @langchain/aws merges it into the text before it.
    const blankAi = new AIMessage({
      content: [
        { type: "text", text: "ok" },
        { type: "text", text: " " },
      ],
    });
    expect(rulesOf([new HumanMessage("a"), blankAi, new HumanMessage("b")], "bedrock")).toEqual([]);
    expect(rulesOf([new HumanMessage("a"), blankAi, new HumanMessage("b")], "anthropic")).toEqual(["empty_content"]);
    // Every empty form of a user message, Korean ideographic space included.
    for (const content of ["", "  ", "\u3000", [], [{ type: "text", text: "" }], [" "]]) {
      const empty = [new HumanMessage({ content: content as never }), new AIMessage("ok"), new HumanMessage("b")];
      expect(refusals(empty)).toEqual(["anthropic:empty_content@0", "gemini:empty_content@0", "bedrock:empty_content@0"]);
    }
  });

  it("blank text beside tool calls and in tool results: Anthropic refuses a blank string or block beside the calls, and a result's blank block", () => {
    // The converter sends "" beside calls as the calls alone, any other string as a text block before them.
    expect(refusals([new HumanMessage("a"), ai(["c1"], ""), result("c1")])).toEqual([]);
    expect(refusals([new HumanMessage("a"), ai(["c1"], " \n"), result("c1")])).toEqual(["anthropic:empty_content@1"]);
    const blankBlock = new AIMessage({
      content: [
        { type: "text", text: "" },
        { type: "tool_use", id: "c1", name: "lookup", input: { q: "c1" } },
      ],
      tool_calls: [call("c1")],
    });
    expect(refusals([new HumanMessage("a"), blankBlock, result("c1")])).toEqual(["anthropic:empty_content@1", "gemini:empty_content@1"]);
    const blankResult = new ToolMessage({
      content: [
        { type: "text", text: " " },
        { type: "text", text: "x" },
      ],
      tool_call_id: "c1",
      name: "lookup",
    });
    expect(refusals([new HumanMessage("a"), ai(["c1"]), blankResult])).toEqual(["anthropic:empty_content@2"]);
    // Only reasoning blocks: @langchain/anthropic drops them, the message reaches Anthropic empty.
    const reasoningOnly = new AIMessage({
      content: [
        { type: "reasoning", reasoning: "r" },
        { type: "text", text: " " },
      ],
    });
    expect(refusals([new HumanMessage("a"), reasoningOnly, new HumanMessage("b")])).toEqual(["anthropic:empty_content@1"]);
    const reasoningAndText = new AIMessage({
      content: [
        { type: "reasoning", reasoning: "r" },
        { type: "text", text: "hi" },
      ],
    });
    expect(refusals([new HumanMessage("a"), reasoningAndText, new HumanMessage("b")])).toEqual([]);
    // An empty string result is sent as it is by every converter and accepted.
    expect(refusals([new HumanMessage("a"), ai(["c1"]), result("c1", "")])).toEqual([]);
  });

  it("tool call ids: missing for all but Gemini; Anthropic and Bedrock patterns; OpenAI's length; repeats within one message", () => {
    const noId = new AIMessage({ content: "", tool_calls: [{ name: "lookup", args: {}, type: "tool_call" }] });
    expect(rulesOf([new HumanMessage("a"), noId, new ToolMessage({ content: "x", tool_call_id: "" })], "openai")).toEqual(["tool_call_id"]);
    expect(rulesOf([new HumanMessage("a"), noId, new ToolMessage({ content: "x", tool_call_id: "" })], "gemini")).toEqual([]);
    const dotted = [new HumanMessage("a"), ai(["call.1"]), result("call.1")];
    expect(rulesOf(dotted, "anthropic")).toEqual(["tool_call_id"]);
    expect(rulesOf(dotted, "openai")).toEqual([]);
    const long = "x".repeat(65);
    expect(rulesOf([new HumanMessage("a"), ai([long]), result(long)], "bedrock")).toEqual(["tool_call_id"]);
    // OpenAI Chat Completions: at most 40 characters (a Responses `fc_` item id has 53).
    const fc = `fc_${"0f0e50a1476a6c35006912c58dc9f8819192c25864eb16f07f"}`;
    expect(rulesOf([new HumanMessage("a"), ai([fc]), result(fc)], "openai")).toEqual(["tool_call_id"]);
    expect(rulesOf([new HumanMessage("a"), ai([fc]), result(fc)], "bedrock")).toEqual([]);
    expect(rulesOf([new HumanMessage("a"), ai(["c".repeat(40)]), result("c".repeat(40))], "openai")).toEqual([]);
    const twice = [new HumanMessage("a"), ai(["c1", "c1"]), result("c1"), result("c1")];
    expect(rulesOf(twice, "anthropic")).toEqual(["tool_call_id"]);
    // OpenAI (`Duplicate value for 'tool_call_id'`, the two results share it) and Bedrock (`The toolUse blocks ... contain duplicate Ids`).
    expect(rulesOf(twice, "openai")).toEqual(["tool_call_id"]);
    expect(rulesOf(twice, "bedrock")).toEqual(["tool_call_id"]);
    expect(rulesOf(twice, "gemini")).toEqual([]);
    // One id in two AI messages of a request: Anthropic only.
    const rounds = [new HumanMessage("a"), ai(["c1"]), result("c1"), new AIMessage("x"), new HumanMessage("b"), ai(["c1"]), result("c1")];
    expect(rulesOf(rounds, "openai")).toEqual([]);
    expect(rulesOf(rounds, "bedrock")).toEqual([]);
  });

  it("message_name (OpenAI): a message name or tool call name outside [a-zA-Z0-9_-]+", () => {
    // `createAgent({ name: "travel agent" })` names its AI messages so; a group chat's user `Alice B.`.
    const spaced = [new HumanMessage({ content: "hi", name: "Alice B." }), new AIMessage({ content: "ok", name: "travel agent" })];
    expect(refusals([...spaced, new HumanMessage("more")])).toEqual(["openai:message_name@0", "openai:message_name@1"]);
    expect(refusals([new HumanMessage({ content: "hi", name: "" })])).toEqual(["openai:message_name@0"]);
    const dotted = [new HumanMessage("a"), new AIMessage({ content: "", tool_calls: [call("c1", "web.search")] }), result("c1")];
    expect(refusals(dotted)).toEqual(["openai:message_name@1"]);
    expect(validateProviderRequest(dotted)[0]?.message).toContain('"web.search"');
    // Names of the pattern, and none at all: accepted.
    const plain = [
      new SystemMessage({ content: "s", name: "rules_v2" }),
      new HumanMessage({ content: "hi", name: "alice-1" }),
      new AIMessage({ content: "", name: "model", tool_calls: [call("c1", "look_up-2")] }),
      new ToolMessage({ content: "r", tool_call_id: "c1", name: "look_up-2" }),
    ];
    expect(refusals(plain)).toEqual([]);
  });

  it("media_parts: an image or file in a system or AI message (OpenAI and Bedrock; Anthropic for a system message)", () => {
    const image = { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo" } };
    const file = { type: "file", source_type: "base64", mime_type: "application/pdf", data: "JVBERi0x" };
    const system = new SystemMessage({ content: [{ type: "text", text: "Summary: the user sent a photo." }, image] as never });
    expect(refusals([system, new HumanMessage("go")])).toEqual([
      "openai:media_parts@0",
      "anthropic:media_parts@0",
      "bedrock:media_parts@0",
    ]);
    const answer = new AIMessage({ content: [{ type: "text", text: "here" }, file] as never });
    expect(refusals([new HumanMessage("go"), answer, new HumanMessage("thanks")])).toEqual([
      "openai:media_parts@1",
      "bedrock:media_parts@1",
    ]);
    // In a user message, and text, reasoning or tool_use blocks in an AI message: accepted.
    const user = new HumanMessage({ content: [{ type: "text", text: "see" }, image] as never });
    const blocks = new AIMessage({
      content: [
        { type: "reasoning", reasoning: "r" },
        { type: "text", text: "t" },
      ] as never,
    });
    expect(refusals([user, blocks, new HumanMessage("ok")])).toEqual([]);
  });

  it("empty_content (Bedrock): a tool result whose content is an empty array (`toolResult.content: []`)", () => {
    const empty = new ToolMessage({ content: [] as never, tool_call_id: "c1" });
    expect(refusals([new HumanMessage("a"), ai(["c1"]), empty])).toEqual(["bedrock:empty_content@2"]);
    // An empty string is taken by all four.
    expect(refusals([new HumanMessage("a"), ai(["c1"]), result("c1", "")])).toEqual([]);
  });

  // https://github.com/anomalyco/opencode/issues/3077: with thinking on, "a final `assistant`
  // message must start with a thinking block" (preceding the newest tool_use and tool_result blocks).
  it("thinking_first: a tool loop's final assistant turn that holds thinking blocks must open with one (Anthropic only)", () => {
    const thinking = (text: string, ids: string[]) =>
      new AIMessage({
        content: [
          { type: "thinking", thinking: text, signature: `sig-${text}` },
          ...ids.map((id) => ({ type: "tool_use", id, name: "lookup", input: { q: id } })),
        ] as never,
        tool_calls: ids.map((id) => call(id)),
      });
    const ask = new HumanMessage("Check 12A.");
    // Accepted: the turn opens with its thinking; no thinking at all; a request that ends in a user turn.
    expect(refusals([ask, thinking("a", ["call_a"]), result("call_a")])).toEqual([]);
    expect(refusals([ask, ai(["call_a"], "Checking."), result("call_a")])).toEqual([]);
    expect(
      refusals([
        ask,
        new AIMessage({
          content: [
            { type: "text", text: "Draft." },
            { type: "thinking", thinking: "t", signature: "s" },
          ] as never,
        }),
        new HumanMessage("ok"),
      ]),
    ).toEqual([]);
    // Refused: text before the thinking block, in one message or in the turn the API combines from two.
    const textFirst = new AIMessage({
      content: [
        { type: "text", text: "Draft." },
        { type: "thinking", thinking: "t", signature: "s" },
        { type: "tool_use", id: "call_a", name: "lookup", input: {} },
      ] as never,
      tool_calls: [call("call_a")],
    });
    expect(refusals([ask, textFirst, result("call_a")])).toEqual(["anthropic:thinking_first@1"]);
    // Text after the results is still the tool loop's user turn (the API combines it with them).
    expect(refusals([ask, textFirst, result("call_a"), new HumanMessage("context")], ["anthropic"])).toEqual([
      "anthropic:thinking_first@1",
    ]);
    expect(refusals([ask, new AIMessage("Draft."), thinking("a", ["call_a"]), result("call_a")], ["anthropic"])).toEqual([
      "anthropic:thinking_first@1",
    ]);
  });

  it("assistant_prefill (opt-in, Anthropic): a request ending on an AI message; system messages after it do not count", () => {
    const ended = [new SystemMessage("s"), new HumanMessage("hi"), new AIMessage("hello")];
    expect(refusals(ended)).toEqual([]);
    expect(validateProviderRequest(ended, { noPrefill: true }).map((v) => `${v.provider}:${v.rule}@${v.index}`)).toEqual([
      "anthropic:assistant_prefill@2",
    ]);
    expect(validateProviderRequest([...ended, new SystemMessage("late")], { noPrefill: true, providers: ["anthropic"] })[0]?.rule).toBe(
      "assistant_prefill",
    );
    // A tool loop or a user message last: accepted.
    expect(validateProviderRequest([new HumanMessage("hi"), ai(["c1"]), result("c1")], { noPrefill: true })).toEqual([]);
    expect(validateProviderRequest([...ended, new HumanMessage("again")], { noPrefill: true })).toEqual([]);
    // strictModel takes the option.
    const model = strictModel({ noPrefill: true, onViolation: "record" });
    expect(model.providerLog.check(ended).map((v) => v.rule)).toEqual(["assistant_prefill"]);
  });

  it("programmatic_result_cache (Anthropic): cache_control on the result of a call made by code execution", () => {
    const caller = { type: "code_execution_20250825", tool_id: "srvtoolu_1" };
    const call = new AIMessage({
      content: [
        { type: "server_tool_use", id: "srvtoolu_1", name: "code_execution", input: { code: "f()" } },
        { type: "tool_use", id: "toolu_p", name: "f", input: {}, caller },
        { type: "tool_use", id: "toolu_o", name: "f", input: {} },
      ] as never,
      tool_calls: [
        { id: "toolu_p", name: "f", args: {}, type: "tool_call" },
        { id: "toolu_o", name: "f", args: {}, type: "tool_call" },
      ],
    });
    const markedText = [{ type: "text", text: "r", cache_control: { type: "ephemeral" } }] as never;
    const ask = new HumanMessage("go");
    const programmatic = new ToolMessage({ content: markedText, tool_call_id: "toolu_p" });
    const own = new ToolMessage({ content: markedText, tool_call_id: "toolu_o" });
    expect(refusals([ask, call, programmatic, new ToolMessage({ content: "r", tool_call_id: "toolu_o" })])).toEqual([
      "anthropic:programmatic_result_cache@2",
    ]);
    // A mark on a result of the model's own call, or no mark: accepted.
    expect(refusals([ask, call, new ToolMessage({ content: "r", tool_call_id: "toolu_p" }), own])).toEqual([]);
    // Anthropic's native format: a tool_result block (or a block inside it) marked.
    const native = new HumanMessage({
      content: [
        { type: "tool_result", tool_use_id: "toolu_p", content: markedText },
        { type: "tool_result", tool_use_id: "toolu_o", content: "r" },
      ] as never,
    });
    expect(refusals([ask, call, native], ["anthropic"])).toEqual(["anthropic:programmatic_result_cache@2"]);
  });

  it("tool_result_parts (OpenAI): a tool result holding an image, file or other non-text part", () => {
    const ask = new HumanMessage("go");
    const image = new ToolMessage({
      content: [
        { type: "text", text: "screen 3" },
        { type: "image", source_type: "base64", mime_type: "image/png", data: "iVBORw0KGgo" },
      ] as never,
      tool_call_id: "call_a",
    });
    const url = new ToolMessage({
      content: [{ type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo" } }] as never,
      tool_call_id: "call_b",
    });
    expect(refusals([ask, ai(["call_a", "call_b"]), image, url])).toEqual(["openai:tool_result_parts@2", "openai:tool_result_parts@3"]);
    expect(validateProviderRequest([ask, ai(["call_a"]), image])[0]?.message).toContain('["image"]');
    // Text blocks (marked for caching too), a string, and blocks the converter drops: accepted.
    const text = new ToolMessage({
      content: [
        { type: "text", text: "r", cache_control: { type: "ephemeral" } },
        { type: "reasoning", reasoning: "x" },
      ] as never,
      tool_call_id: "call_a",
    });
    expect(refusals([ask, ai(["call_a", "call_b"]), text, result("call_b")])).toEqual([]);
    // An image in a user message is OpenAI's own place for it.
    expect(
      refusals([
        new HumanMessage({
          content: [
            { type: "text", text: "see" },
            { type: "image_url", image_url: { url: "data:x" } },
          ] as never,
        }),
      ]),
    ).toEqual([]);
  });

  it("refuses a request with no message but system messages, and unknown message types", () => {
    expect(refusals([new SystemMessage("s")])).toEqual(["anthropic:empty_request@0", "gemini:empty_request@0", "bedrock:empty_request@0"]);
    expect(refusals([])).toContain("openai:empty_request@0");
    const remove = new RemoveMessage({ id: "x" });
    expect(rulesOf([new HumanMessage("a"), remove], "openai")).toEqual(["unsupported_message"]);
  });

  it("assertProviderRequest throws a typed error naming provider, rule and index", () => {
    let caught: unknown;
    try {
      assertProviderRequest([new HumanMessage("hi"), result("zz")], { providers: ["anthropic"] });
    } catch (error) {
      caught = error;
    }
    expect(ProviderRequestError.isInstance(caught)).toBe(true);
    const error = caught as ProviderRequestError;
    expect([error.code, error.provider, error.rule, error.index]).toEqual([
      "THREADWISE_PROVIDER_REJECTED",
      "anthropic",
      "tool_result_without_call",
      1,
    ]);
    expect(error.message).toContain("anthropic would refuse the request: tool_result_without_call at message 1");
  });

  it("never changes its input", () => {
    const messages = [new HumanMessage("hi"), result("zz"), ai(["c1"])];
    const before = JSON.stringify(messages);
    validateProviderRequest(messages);
    expect(JSON.stringify(messages)).toBe(before);
  });
});

describe("strict doubles in an agent", () => {
  const lookup = tool(async ({ q }: { q: string }) => `found ${q}`, {
    name: "lookup",
    description: "Looks up.",
    schema: z.object({ q: z.string() }),
  });

  it("strictModel answers valid requests and logs them", async () => {
    let n = 0;
    const model = strictModel({
      answer: () => (n++ === 0 ? new AIMessage({ content: "", tool_calls: [call("c1"), call("c2")] }) : "Done."),
    });
    const agent = createAgent({ model, tools: [lookup], systemPrompt: "Be brief." });
    const out = await agent.invoke({ messages: [new HumanMessage("Check two seats.")] });
    expect(out.messages.at(-1)?.content).toBe("Done.");
    expect([model.providerLog.requests, model.providerLog.rejections]).toEqual([2, 0]);
  });

  it("strictModel answers again after a refused request (was: nothing queued, every later call failed)", async () => {
    const model = strictModel({ answer: (messages) => `seen ${messages.length}` });
    await expect(model.invoke([new HumanMessage("hi"), result("c_orphan")])).rejects.toThrow(/tool_result_without_call/);
    await expect(model.invoke([new HumanMessage("hi"), result("c_orphan")])).rejects.toThrow(/tool_result_without_call/);
    expect((await model.invoke([new HumanMessage("hi")])).content).toBe("seen 1");
    expect((await model.invoke([new HumanMessage("hi"), new AIMessage("a"), new HumanMessage("b")])).content).toBe("seen 3");
    expect([model.providerLog.requests, model.providerLog.rejections]).toEqual([4, 2]);
  });

  it("a middleware that leaves an orphan makes the model call fail with ProviderRequestError", async () => {
    const dropsFirstResult = createMiddleware({
      name: "test/drops-first-result",
      wrapModelCall: (request, handler) => {
        const at = request.messages.findIndex((m) => m.getType() === "tool");
        return handler(at === -1 ? request : { ...request, messages: request.messages.filter((_, k) => k !== at) });
      },
    });
    const model = withProviderCheck(
      fakeModel()
        .respondWithTools([
          { name: "lookup", args: { q: "a" }, id: "c1" },
          { name: "lookup", args: { q: "b" }, id: "c2" },
        ])
        .respond(new AIMessage("never")),
    );
    const agent = createAgent({ model, tools: [lookup], middleware: [dropsFirstResult] });
    const error = await agent.invoke({ messages: [new HumanMessage("go")] }).catch((e: unknown) => e);
    // LangChain wraps it in a MiddlewareError; `find` walks the cause chain.
    expect(ProviderRequestError.find(error)?.rule).toBe("unanswered_tool_call");
    expect(model.providerLog.rejected.map((r) => r.request)).toEqual([1]);
  });

  it("providerProbe records refusals of any model without failing the call (onViolation: record)", async () => {
    const probe = providerProbe({ onViolation: "record" });
    const model = fakeModel().respond(new AIMessage("hi"));
    const agent = createAgent({ model, tools: [], systemPrompt: "Be brief.", middleware: [probe] });
    await agent.invoke({ messages: [new SystemMessage("stored rule"), new HumanMessage("hello")] });
    expect(probe.log.requests).toBe(1);
    expect(probe.log.rejectionsByProvider()).toEqual({ openai: 0, anthropic: 1, gemini: 1, bedrock: 1 });
    expect(probe.log.rejected[0]?.violations.map((v) => `${v.provider}:${v.rule}@${v.index}`)).toContain("gemini:system_count@1");
  });
});
