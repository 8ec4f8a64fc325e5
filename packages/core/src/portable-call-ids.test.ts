import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { assembleView, EMPTY_DECISIONS } from "./assemble-view.js";
import { groupMessages } from "./groups.js";
import { toolCallsOf } from "./message-kinds.js";
import { PORTABLE_CALL_ID, portableCallId, withPortableCallIds, withUniqueCallIds } from "./portable-call-ids.js";
import { validateProviderRequest } from "./testing/provider-validator.js";

const NONE = EMPTY_DECISIONS;

/** A thread first served by Kimi K2 through an OpenAI-compatible endpoint: its call ids are `functions.<name>:<n>`. */
function kimiThread(): BaseMessage[] {
  return [
    new HumanMessage({ id: "h1", content: "Seat 12A free tomorrow? 내일 12A 비었나요?" }),
    new AIMessage({
      id: "a1",
      content: "",
      tool_calls: [
        { id: "functions.lookup:0", name: "lookup", args: { q: "12A" }, type: "tool_call" },
        { id: "functions.lookup:1", name: "lookup", args: { q: "12B" }, type: "tool_call" },
      ],
      additional_kwargs: {
        tool_calls: [
          { id: "functions.lookup:0", type: "function", function: { name: "lookup", arguments: '{"q":"12A"}' } },
          { id: "functions.lookup:1", type: "function", function: { name: "lookup", arguments: '{"q":"12B"}' } },
        ],
      },
    }),
    new ToolMessage({ id: "t1", content: "12A free", tool_call_id: "functions.lookup:0" }),
    new ToolMessage({ id: "t2", content: "12B taken", tool_call_id: "functions.lookup:1" }),
    new AIMessage({ id: "a2", content: "12A is free." }),
    new HumanMessage({ id: "h2", content: "Book it." }),
  ];
}

describe("portable tool call ids (R33: a thread continued by another provider)", () => {
  it("maps only ids some provider refuses, the same way every time, within Anthropic's and Bedrock's rules", () => {
    expect(portableCallId("call_abc-1")).toBe("call_abc-1");
    expect(portableCallId("toolu_01A09q90qw90lq917835lq9")).toBe("toolu_01A09q90qw90lq917835lq9");
    expect(portableCallId("")).toBe("");
    const ids = ["functions.lookup:0", "functions.lookup:1", "call_x|fc_y", "a".repeat(65), "호출:1", "functions_lookup_0"];
    const mapped = ids.map(portableCallId);
    for (const id of mapped.slice(0, 5)) expect(id).toMatch(PORTABLE_CALL_ID);
    expect(new Set(mapped).size).toBe(ids.length);
    expect(mapped).toEqual(ids.map(portableCallId));
    expect(mapped[0]).toMatch(/^functions_lookup_0_[0-9a-f]{12}$/);
  });

  it("before: a Kimi thread's view is refused by Anthropic and Bedrock; after: every provider accepts it, call and results renamed alike", () => {
    const thread = kimiThread();
    const stored = JSON.stringify(thread);
    // What was sent before portable ids: the stored messages as they are.
    const rules = (messages: BaseMessage[]) => validateProviderRequest(messages).map((v) => `${v.provider}:${v.rule}`);
    expect(new Set(rules(thread))).toEqual(new Set(["anthropic:tool_call_id", "bedrock:tool_call_id"]));
    const view = assembleView(thread, new SystemMessage("Be brief."), NONE).messages;
    expect(rules(view)).toEqual([]);
    const calls = toolCallsOf(view[1] as BaseMessage).map((c) => c.id);
    expect(calls).toEqual([portableCallId("functions.lookup:0"), portableCallId("functions.lookup:1")]);
    expect(view.slice(2, 4).map((m) => (m as ToolMessage).tool_call_id)).toEqual(calls);
    expect(((view[1] as AIMessage).additional_kwargs.tool_calls ?? []).map((c) => c.id)).toEqual(calls);
    // Ids of the messages, text and order are those stored; the stored thread is unchanged.
    expect(view.map((m) => m.id)).toEqual(thread.map((m) => m.id));
    expect(view.map((m) => m.content)).toEqual(thread.map((m) => m.content));
    expect(JSON.stringify(thread)).toBe(stored);
  });

  it("ids OpenAI Chat Completions refuses for their length (over 40 characters) are sent as portable ids of at most 40, repeated ones too", () => {
    // Codex's `call_id|item_id`, a Responses `fc_` item id (53 characters), Kimi's ids for a long tool name.
    const ids = [
      "call_Qm3b2lYhW4n0T9xK1pVd7sJe|fc_68a1f0c2b7e48191a2b3c4d5e6f7a8b90c1d2e3f4a5b6c7d",
      "fc_0f0e50a1476a6c35006912c58dc9f8819192c25864eb16f07f",
      "functions.search_knowledge_base:12",
    ];
    for (const id of ids) {
      expect(portableCallId(id)).toMatch(PORTABLE_CALL_ID);
      expect(portableCallId(id).length).toBeLessThanOrEqual(40);
    }
    expect(new Set(ids.map(portableCallId)).size).toBe(ids.length);
    // A 30-character id repeated by a later answer is sent renamed, within 40 characters too.
    const repeated = "toolu_01A09q90qw90lq917835lq9x";
    const thread: BaseMessage[] = [new HumanMessage({ id: "h1", content: "Seat 12A free tomorrow?" })];
    for (const [k, id] of [...ids, repeated, repeated].entries())
      thread.push(
        new AIMessage({ id: `a${k}`, content: "", tool_calls: [{ id, name: "lookup", args: { q: `${k}` }, type: "tool_call" }] }),
        new ToolMessage({ id: `t${k}`, content: "free", tool_call_id: id }),
      );
    thread.push(new AIMessage({ id: "a-final", content: "12A is free." }), new HumanMessage({ id: "h2", content: "Book it." }));
    const view = assembleView(thread, new SystemMessage("Be brief."), NONE).messages;
    expect(validateProviderRequest(view)).toEqual([]);
    const sent = view.flatMap((m) => toolCallsOf(m).map((c) => c.id as string));
    expect(sent).toHaveLength(5);
    expect(new Set(sent).size).toBe(5);
    for (const id of sent) expect(id.length).toBeLessThanOrEqual(40);
  });

  it("a partly answered parallel call keeps its answered result under the portable id", () => {
    const thread = kimiThread().filter((m) => m.id !== "t2");
    const groups = groupMessages(thread);
    const call = groups.find((g) => g.kind === "tool_call");
    expect(call?.unanswered).toEqual(["functions.lookup:1"]);
    const view = assembleView(thread, new SystemMessage(""), NONE).messages;
    expect(validateProviderRequest(view)).toEqual([]);
    expect(toolCallsOf(view[1] as BaseMessage).map((c) => c.id)).toEqual([portableCallId("functions.lookup:0")]);
  });

  it("OpenAI Responses output items and content blocks follow the calls; a fresh copy of the thread maps to equal messages", () => {
    const ai = new AIMessage({
      id: "a1",
      content: [{ type: "tool_use", id: "functions.lookup:0", name: "lookup", input: {} }],
      tool_calls: [{ id: "functions.lookup:0", name: "lookup", args: {}, type: "tool_call" }],
      response_metadata: { output: [{ type: "function_call", call_id: "functions.lookup:0", name: "lookup", arguments: "{}" }] },
    });
    const copy = withPortableCallIds(ai) as AIMessage;
    const id = portableCallId("functions.lookup:0");
    expect((copy.content as Array<{ id: string }>)[0]?.id).toBe(id);
    expect((copy.response_metadata.output as Array<{ call_id: string }>)[0]?.call_id).toBe(id);
    expect(withPortableCallIds(ai)).toBe(copy);
    const again = withPortableCallIds(new AIMessage({ ...ai, content: ai.content, tool_calls: ai.tool_calls }) as BaseMessage);
    expect(toolCallsOf(again)).toEqual(toolCallsOf(copy));
    const plain = new ToolMessage({ content: "ok", tool_call_id: "call_1" });
    expect(withPortableCallIds(plain)).toBe(plain);
  });

  it("Gemini's thought signatures follow their calls' ids (else gemini-3 is sent a dummy signature); the stored map is unchanged", () => {
    const key = "__gemini_function_call_thought_signatures__";
    const ai = new AIMessage({
      id: "a1",
      content: "",
      tool_calls: [
        { id: "functions.lookup:0", name: "lookup", args: {}, type: "tool_call" },
        { id: "call_ok", name: "lookup", args: {}, type: "tool_call" },
      ],
      additional_kwargs: { [key]: { "functions.lookup:0": "sig-0", call_ok: "sig-ok" } },
    });
    const copy = withPortableCallIds(ai) as AIMessage;
    expect(copy.additional_kwargs[key]).toEqual({ [portableCallId("functions.lookup:0")]: "sig-0", call_ok: "sig-ok" });
    expect(ai.additional_kwargs[key]).toEqual({ "functions.lookup:0": "sig-0", call_ok: "sig-ok" });
  });

  // Kimi's Anthropic-compatible endpoint (https://github.com/HKUDS/nanobot/issues/4473), MiMo and Kimi
  // through proxies (https://github.com/can1357/oh-my-pi/issues/2055) give two parallel calls of one
  // answer the same id; LangChain runs both and stores both results under it, in call order.
  it("two calls of one AI message under one id: the second call and its result are sent renamed, each result with its own call", () => {
    const call = (n: number) => ({ id: "grep:3", name: "lookup", args: { n }, type: "tool_call" as const });
    const makeThread = (): BaseMessage[] => [
      new HumanMessage({ id: "h1", content: "Look 1 and 2 up." }),
      new AIMessage({
        id: "a1",
        content: [
          { type: "tool_use", id: "grep:3", name: "lookup", input: { n: 1 } },
          { type: "tool_use", id: "grep:3", name: "lookup", input: { n: 2 } },
        ],
        tool_calls: [call(1), call(2)],
      }),
      new ToolMessage({ id: "t1", content: "one", tool_call_id: "grep:3" }),
      new ToolMessage({ id: "t2", content: "two", tool_call_id: "grep:3" }),
      new AIMessage({ id: "a2", content: "1 and 2 found." }),
      new HumanMessage({ id: "h2", content: "And 3?" }),
      new AIMessage({
        id: "a3",
        content: "",
        tool_calls: [
          { ...call(3), id: "call_0" },
          { ...call(4), id: "call_0" },
        ],
      }),
      new ToolMessage({ id: "t3", content: "three", tool_call_id: "call_0" }),
      new ToolMessage({ id: "t4", content: "four", tool_call_id: "call_0" }),
    ];
    const thread = makeThread();
    const stored = JSON.stringify(thread);
    const rules = (messages: BaseMessage[]) => validateProviderRequest(messages).map((v) => `${v.provider}:${v.rule}`);
    // Before: sent as stored, one tool_use id twice in one message.
    const repeats = (messages: BaseMessage[]) =>
      validateProviderRequest(messages).filter((v) => v.message.includes("repeats in one message"));
    expect(repeats(thread.slice(5)).map((v) => `${v.provider}:${v.rule}`)).toContain("anthropic:tool_call_id");
    const view = assembleView(thread, new SystemMessage("Be brief."), NONE).messages;
    expect(rules(view)).toEqual([]);
    const [first, second] = toolCallsOf(view[1] as BaseMessage).map((c) => c.id as string);
    expect(first).toBe(portableCallId("grep:3"));
    expect(second).not.toBe(first);
    expect(second).toMatch(PORTABLE_CALL_ID);
    // The content blocks follow the calls, and each result answers the call at its place.
    expect(((view[1] as AIMessage).content as Array<{ id: string }>).map((b) => b.id)).toEqual([first, second]);
    expect(view.slice(2, 4).map((m) => (m as ToolMessage).tool_call_id)).toEqual([first, second]);
    expect(view.slice(2, 4).map((m) => m.content)).toEqual(["one", "two"]);
    const later = toolCallsOf(view[6] as BaseMessage).map((c) => c.id as string);
    expect(later[0]).toBe("call_0");
    expect(later[1]).not.toBe("call_0");
    expect(view.slice(7, 9).map((m) => (m as ToolMessage).tool_call_id)).toEqual(later);
    expect(toolCallsOf(view[6] as BaseMessage).map((c) => c.args)).toEqual([{ n: 3 }, { n: 4 }]);
    // A pure function of the request: a fresh copy of the thread is sent alike; the stored thread is unchanged.
    const again = assembleView(makeThread(), new SystemMessage("Be brief."), NONE);
    expect(again.messages.flatMap((m) => toolCallsOf(m).map((c) => c.id))).toEqual(view.flatMap((m) => toolCallsOf(m).map((c) => c.id)));
    expect(JSON.stringify(thread)).toBe(stored);
    // An id repeated within its message and by an earlier one: every call of it gets its own id.
    const both = withUniqueCallIds([...thread.slice(6), new HumanMessage("again"), ...thread.slice(6)]);
    const sent = both.flatMap((m) => toolCallsOf(m).map((c) => c.id as string));
    expect(new Set(sent).size).toBe(4);
    expect(repeats([new HumanMessage("q"), ...both])).toEqual([]);
    const idRules = ["tool_call_id", "duplicate_tool_result", "tool_result_without_call", "unanswered_tool_call"];
    expect(validateProviderRequest([new HumanMessage("q"), ...both]).filter((v) => idRules.includes(v.rule))).toEqual([]);
  });
});

describe("view copies of messages edited in place", () => {
  // The oracle: the copy a process that never saw the message makes of an equal message.
  const equalMessage = (m: BaseMessage): BaseMessage =>
    m.type === "tool"
      ? new ToolMessage({ id: m.id, content: m.content, tool_call_id: (m as ToolMessage).tool_call_id })
      : new AIMessage({ id: m.id, content: m.content, tool_calls: structuredClone((m as AIMessage).tool_calls) });

  for (const [lang, before, after] of [
    ["en", "Seat 12A is free tomorrow.", "Seat 12A was taken an hour ago."],
    ["ko", "내일 12A 좌석은 비어 있어요.", "12A 좌석은 한 시간 전에 예약됐어요."],
  ] as const) {
    it(`a portable copy is made again after the stored message's content or arguments changed (${lang})`, () => {
      const call = new AIMessage({
        id: "a1",
        content: before,
        tool_calls: [{ id: "functions.lookup:0", name: "lookup", args: { q: before }, type: "tool_call" }],
      });
      const result = new ToolMessage({ id: "t1", content: before, tool_call_id: "functions.lookup:0" });
      for (const m of [call, result]) expect(withPortableCallIds(m)).toBe(withPortableCallIds(m));

      call.content = after;
      ((call.tool_calls ?? [])[0] as { args: Record<string, unknown> }).args.q = after;
      result.content = after;
      for (const m of [call, result]) {
        const copy = withPortableCallIds(m);
        expect(copy.content).toBe(after);
        expect(copy).toEqual(withPortableCallIds(equalMessage(m)));
        // Unchanged from here on: every hook of a call shares this copy again.
        expect(withPortableCallIds(m)).toBe(copy);
      }
    });
  }
});
