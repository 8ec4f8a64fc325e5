import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sentMessages } from "./assemble-view.js";
import { dropOrphans, findOrphans, groupMessages, groupsEndingAt, type MessageGroup, newestUserAt, protectedTailStart } from "./groups.js";
import { callIdsOf, isUserMessage, messageType, toolCallsOf, toolResultIdsOf } from "./message-kinds.js";
import { contextMessage } from "./placement.js";
import { validateProviderRequest } from "./testing/provider-validator.js";
import { selectView } from "./view.js";

const human = (id: string) => new HumanMessage({ id, content: id });
const ai = (id: string) => new AIMessage({ id, content: id });
const call = (id: string, callIds: string[]) =>
  new AIMessage({ id, content: "", tool_calls: callIds.map((c) => ({ id: c, name: "f", args: {}, type: "tool_call" as const })) });
const result = (id: string, callId: string) => new ToolMessage({ id, content: `r-${callId}`, tool_call_id: callId });
const shape = (messages: BaseMessage[]) =>
  groupMessages(messages).map((g) => `${g.kind}:${g.messages.map((m) => m.id).join(",")}@${g.start}-${g.end}`);

describe("groupMessages", () => {
  it("splits user, assistant, system and tool-call groups", () => {
    expect(shape([new SystemMessage({ id: "s", content: "sys" }), human("h"), ai("a"), call("c", ["x"]), result("t", "x")])).toEqual([
      "system:s@0-1",
      "user:h@1-2",
      "assistant:a@2-3",
      "tool_call:c,t@3-5",
    ]);
  });

  it("keeps parallel calls with all their results, in any order", () => {
    expect(shape([call("c", ["x", "y", "z"]), result("tz", "z"), result("tx", "x"), result("ty", "y"), human("h")])).toEqual([
      "tool_call:c,tz,tx,ty@0-4",
      "user:h@4-5",
    ]);
  });

  it("pairs a repeated tool_call_id by position (tau-bench reuses ids within a run)", () => {
    expect(shape([call("c1", ["call_1"]), result("t1", "call_1"), ai("a"), call("c2", ["call_1"]), result("t2", "call_1")])).toEqual([
      "tool_call:c1,t1@0-2",
      "assistant:a@2-3",
      "tool_call:c2,t2@3-5",
    ]);
  });

  it("marks stored orphans: a result without its call, and a call without all results", () => {
    expect(shape([result("t0", "gone"), human("h"), call("c", ["x", "y"]), human("h2")])).toEqual([
      "orphan:t0@0-1",
      "user:h@1-2",
      "orphan:c@2-3",
      "user:h2@3-4",
    ]);
  });

  it("marks a RemoveMessage stored as a message an orphan (LangGraph keeps one after REMOVE_ALL_MESSAGES as given, langgraph#8423)", () => {
    const messages = [human("h"), ai("a"), human("g"), new RemoveMessage({ id: "g" }), human("h2")];
    expect(shape(messages)).toEqual(["user:h@0-1", "assistant:a@1-2", "user:g@2-3", "orphan:g@3-4", "user:h2@4-5"]);
    expect(validateProviderRequest(sentMessages(selectView(messages, { cost: () => 1, limit: 10 }).messages))).toEqual([]);
  });

  it("keeps what a partly answered parallel call answered: its AI message without the unanswered calls (R37)", () => {
    const stored = new AIMessage({
      id: "c",
      content: [
        { type: "text", text: "Booking and looking up." },
        { type: "tool_use", id: "x", name: "f", input: {} },
        { type: "tool_use", id: "y", name: "f", input: {} },
      ],
      tool_calls: [
        { id: "x", name: "f", args: {}, type: "tool_call" },
        { id: "y", name: "f", args: {}, type: "tool_call" },
      ],
      additional_kwargs: {
        tool_calls: ["x", "y"].map((id) => ({ id, type: "function" as const, function: { name: "f", arguments: "{}" } })),
      },
    });
    const messages = [human("h"), stored, result("ty", "y"), result("t0", "gone"), human("h2")];
    const groups = groupMessages(messages);
    expect(shape(messages)).toEqual(["user:h@0-1", "tool_call:c,ty@1-4", "orphan:t0@3-4", "user:h2@4-5"]);
    const sent = groups[1]?.messages[0] as AIMessage;
    expect(groups[1]?.unanswered).toEqual(["x"]);
    expect(sent).not.toBe(stored);
    expect(sent.id).toBe("c");
    expect(sent.tool_calls?.map((c) => c.id)).toEqual(["y"]);
    expect(sent.content).toEqual([
      { type: "text", text: "Booking and looking up." },
      { type: "tool_use", id: "y", name: "f", input: {} },
    ]);
    expect(sent.additional_kwargs.tool_calls?.map((c) => c.id)).toEqual(["y"]);
    // The stored message is untouched, and every grouping of it shares one copy.
    expect(stored.tool_calls).toHaveLength(2);
    expect(groupMessages(messages)[1]?.messages[0]).toBe(sent);
    // As stored, the list cannot be sent; the view's list can.
    expect(findOrphans(messages)).toEqual(["unanswered call at 1: x", "orphan at 3..3: tool"]);
    expect(findOrphans(dropOrphans(messages))).toEqual([]);
  });

  // Was: the copy kept `@langchain/google-genai`'s thought signature of the call it dropped, data of
  // a call the request no longer holds (a signature is an opaque blob of up to kilobytes).
  it("a partly answered Gemini call: the thought signature of the dropped call leaves with it", () => {
    const key = "__gemini_function_call_thought_signatures__";
    const stored = new AIMessage({
      id: "g",
      content: "",
      tool_calls: ["x", "y"].map((id) => ({ id, name: "f", args: {}, type: "tool_call" as const })),
      additional_kwargs: { [key]: { x: "sig-x", y: "sig-y" } },
    });
    const sent = groupMessages([human("h"), stored, result("ty", "y"), human("h2")])[1]?.messages[0] as AIMessage;
    expect(sent.tool_calls?.map((c) => c.id)).toEqual(["y"]);
    expect(sent.additional_kwargs[key]).toEqual({ y: "sig-y" });
    expect(stored.additional_kwargs[key]).toEqual({ x: "sig-x", y: "sig-y" });
  });

  it("keeps a complete call and reports a duplicate or foreign result as its own orphan", () => {
    expect(shape([call("c", ["x"]), result("t1", "x"), result("t2", "x"), result("t3", "other")])).toEqual([
      "tool_call:c,t1@0-4",
      "orphan:t2@2-3",
      "orphan:t3@3-4",
    ]);
  });

  it("an AI message with calls and no results at all is an orphan", () => {
    expect(shape([human("h"), call("c", ["x"])])).toEqual(["user:h@0-1", "orphan:c@1-2"]);
    expect(shape([call("c", ["x"]), human("h"), ai("a"), result("t", "x")])).toEqual([
      "orphan:c@0-1",
      "user:h@1-2",
      "assistant:a@2-3",
      "orphan:t@3-4",
    ]);
  });

  // A review resumed with `Command({ resume, update: { messages: [note] } })`: LangGraph applies the
  // update before the reviewed tools run, so the note is stored between the call and its results
  // (unsloth#10091, qwen-code#8165: the results first, then the user's words). No model call came
  // between (its answer would be there), so the results still answer the call, sent before the note.
  it("user messages stored between a call and its first result are sent after the results", () => {
    const groups = groupMessages([human("h"), call("c", ["x", "y"]), human("note"), result("t1", "x"), result("t2", "y"), human("h2")]);
    expect(groups.map((g) => `${g.kind}:${g.messages.map((m) => m.id).join(",")}@${g.start}-${g.end}`)).toEqual([
      "user:h@0-1",
      "tool_call:c,t1,t2,note@1-5",
      "user:h2@5-6",
    ]);
    expect((groups[1] as MessageGroup).deferred).toBe(1);
    expect(validateProviderRequest(sentMessages(dropOrphans([human("h"), call("c", ["x"]), human("note"), result("t", "x")])))).toEqual([]);
    // An AI answer between (a model call saw the call unanswered), or a result answering no call: positional.
    expect(shape([call("c", ["x"]), human("h"), ai("a"), human("h2"), result("t", "x")])[0]).toBe("orphan:c@0-1");
    expect(shape([call("c", ["x"]), human("h"), result("t", "z")])).toEqual(["orphan:c@0-1", "user:h@1-2", "orphan:t@2-3"]);
  });

  // A tool waiting on interrupt() while the user sends a new message instead of the resume
  // (https://github.com/langchain-ai/agent-chat-ui/issues/85): the model's words beside the call
  // were shown to the user, so they are sent; the call is not.
  it("an AI message with words and calls, none answered, is sent as its words without the calls", () => {
    const said = new AIMessage({
      id: "c",
      content: "Let me check seat 4F with you.",
      tool_calls: [{ id: "x", name: "f", args: {}, type: "tool_call" }],
    });
    const groups = groupMessages([human("h"), said, human("h2"), ai("a2")]);
    expect(groups.map((g) => `${g.kind}@${g.start}-${g.end}`)).toEqual(["user@0-1", "assistant@1-2", "user@2-3", "assistant@3-4"]);
    const sent = (groups[1] as MessageGroup).messages[0] as AIMessage;
    expect([sent.id, sent.content, toolCallsOf(sent)]).toEqual(["c", "Let me check seat 4F with you.", []]);
    expect((groups[1] as MessageGroup).unanswered).toEqual(["x"]);
    expect(said.tool_calls).toHaveLength(1);
    expect(findOrphans([human("h"), said, human("h2")])).toEqual(["unanswered call at 1: x"]);
    expect(validateProviderRequest(dropOrphans([human("h"), said, human("h2")]))).toEqual([]);
  });

  // Reasoning is no words shown to the user: an answer of signed thinking and an unanswered call
  // stays left out whole, as before, and no assistant message of thinking alone is sent.
  it("an AI message of reasoning and calls only, none answered, is still an orphan", () => {
    const thinking = new AIMessage({
      id: "c",
      content: [
        { type: "thinking", thinking: "The user wants seat 4F.", signature: "sig" },
        { type: "tool_use", id: "x", name: "f", input: {} },
      ],
      tool_calls: [{ id: "x", name: "f", args: {}, type: "tool_call" }],
    });
    const reasoning = new AIMessage({
      id: "r",
      content: [{ type: "reasoning", reasoning: "seat 4F" }],
      tool_calls: [{ id: "y", name: "f", args: {}, type: "tool_call" }],
    });
    for (const message of [thinking, reasoning])
      expect(groupMessages([human("h"), message, human("h2")]).map((g) => `${g.kind}@${g.start}-${g.end}`)).toEqual([
        "user@0-1",
        "orphan@1-2",
        "user@2-3",
      ]);
  });

  it("needs one result per call when one AI message repeats an id", () => {
    expect(shape([call("c", ["x", "x"]), result("t1", "x")])).toEqual(["orphan:c,t1@0-2"]);
    expect(shape([call("c", ["x", "x"]), result("t1", "x"), result("t2", "x")])).toEqual(["tool_call:c,t1,t2@0-3"]);
  });

  it("results answering two different AI messages: each call takes only what directly follows it", () => {
    // Two calls back to back, then both results: the first call has no result right after it.
    expect(shape([human("h"), call("c1", ["a"]), call("c2", ["b"]), result("ta", "a"), result("tb", "b")])).toEqual([
      "user:h@0-1",
      "orphan:c1@1-2",
      "tool_call:c2,tb@2-5",
      "orphan:ta@3-4",
    ]);
  });

  it("groups messages that have no ids (made by a hook)", () => {
    const made = [
      new AIMessage({ content: "", tool_calls: [{ id: "k", name: "f", args: {} }] }),
      new ToolMessage({ content: "v", tool_call_id: "k" }),
    ];
    const groups = groupMessages([new HumanMessage("q"), ...made]);
    expect(groups.map((g) => g.kind)).toEqual(["user", "tool_call"]);
    expect(groups[1]?.messages[0]).toBe(made[0]);
    expect(groups[1]?.messages[1]).toBe(made[1]);
  });

  it("does not mutate its input", () => {
    const list = [call("c", ["x"]), result("t1", "x"), result("t2", "x")];
    const before = JSON.stringify(list);
    groupMessages(list);
    dropOrphans(list);
    expect(JSON.stringify(list)).toBe(before);
    expect(list).toHaveLength(3);
  });
});

describe("orphans and helpers", () => {
  it("dropOrphans leaves a provider-valid list, findOrphans describes what it removed", () => {
    const list = [result("t0", "gone"), human("h"), call("c", ["x"]), result("t", "x"), call("open", ["y"])];
    expect(dropOrphans(list).map((m) => m.id)).toEqual(["h", "c", "t"]);
    expect(findOrphans(list)).toEqual(["orphan at 0..0: tool", "orphan at 4..4: ai"]);
    expect(findOrphans(dropOrphans(list))).toEqual([]);
  });

  it("protectedTailStart is the newest user group, else the newest non-orphan group", () => {
    const groups = groupMessages([human("h1"), ai("a"), human("h2"), call("c", ["x"]), result("t", "x")]);
    expect(protectedTailStart(groups)).toBe(2);
    expect(protectedTailStart(groupMessages([ai("a"), call("c", ["x"]), result("t", "x"), result("t2", "zz")]))).toBe(1);
    expect(protectedTailStart(groupMessages([result("t", "zz")]))).toBe(1);
    expect(protectedTailStart([])).toBe(0);
  });

  it("messageType, toolCallsOf and isUserMessage read plain message objects", () => {
    expect(messageType(human("h"))).toBe("human");
    expect(toolCallsOf(call("c", ["x"])).map((c) => c.id)).toEqual(["x"]);
    expect(toolCallsOf(human("h"))).toEqual([]);
    expect(isUserMessage(human("h"))).toBe(true);
    expect(isUserMessage(ai("a"))).toBe(false);
  });
});

describe("an empty user message (langchain-ai/langchain#35081)", () => {
  const empty = (id: string, content: unknown) => new HumanMessage({ id, content: content as never });
  const thread = [
    empty("e0", ""),
    ai("a0"),
    human("h1"),
    empty("e1", []),
    call("c1", ["x"]),
    result("t1", "x"),
    empty("e2", [{ type: "text", text: "\u3000" }]),
    ai("a2"),
    empty("e3", "  "),
  ];

  it("is an orphan unless it is the newest user message", () => {
    expect(shape(thread)).toEqual([
      "orphan:e0@0-1",
      "assistant:a0@1-2",
      "user:h1@2-3",
      "orphan:e1@3-4",
      "tool_call:c1,t1@4-6",
      "orphan:e2@6-7",
      "assistant:a2@7-8",
      "user:e3@8-9",
    ]);
    expect(protectedTailStart(groupMessages(thread).filter((g) => g.kind !== "orphan"))).toBe(4);
  });

  it("groupsEndingAt and selectView's walk from the end group it as groupMessages does", () => {
    const all = groupMessages(thread);
    for (let end = thread.length; end > 0; ) {
      const unit = groupsEndingAt(thread, end);
      expect(unit.groups).toEqual(all.filter((g) => g.start >= unit.start && g.end <= end));
      end = unit.start;
    }
    const options = { cost: (g: { messages: readonly unknown[] }) => g.messages.length, startOn: "human" as const };
    for (const limit of [1, 3, 5, 20]) {
      const sliding = selectView(thread, { ...options, limit });
      const whole = selectView(thread, { ...options, limit, eviction: "chunked", lowWatermark: limit - 1 });
      expect(sliding.messages.map((m) => m.id)).not.toContain("e1");
      if (limit === 20) expect(sliding.messages.map((m) => m.id)).toEqual(whole.messages.map((m) => m.id));
    }
    expect(selectView(thread, { ...options, limit: 20 }).messages.map((m) => m.id)).toEqual(["h1", "c1", "t1", "a2", "e3"]);
  });
});

describe("results a tool's Command put after messages of its own (a parallel call)", () => {
  const note = (id: string) => new AIMessage({ id, content: `note ${id}` });
  const say = (id: string) => new HumanMessage({ id, content: `user note ${id}` });

  it("pairs the later results with their call and puts the messages between after all the results", () => {
    const thread = [
      human("h"),
      call("c", ["a", "b", "d"]),
      result("ta", "a"),
      note("n1"),
      say("n2"),
      result("tb", "b"),
      note("n3"),
      result("td", "d"),
      ai("x"),
    ];
    const groups = groupMessages(thread);
    expect(shape(thread)).toEqual(["user:h@0-1", "tool_call:c,ta,tb,td,n1,n2,n3@1-8", "assistant:x@8-9"]);
    expect(groups[1]?.deferred).toBe(3);
    expect(findOrphans(thread)).toEqual(["results after other messages at 1..7"]);
    expect(findOrphans(groups.flatMap((g) => g.messages))).toEqual([]);
  });

  it("a partly answered call keeps what was answered across them", () => {
    const thread = [human("h"), call("c", ["a", "b", "d"]), result("ta", "a"), note("n1"), result("tb", "b"), human("h2")];
    const group = groupMessages(thread)[1] as MessageGroup;
    expect(group.messages.map((m: BaseMessage) => m.id)).toEqual(["c", "ta", "tb", "n1"]);
    expect(group.unanswered).toEqual(["d"]);
    expect(toolCallsOf(group.messages[0] as BaseMessage).map((c) => c.id)).toEqual(["a", "b"]);
  });

  it("keeps the positional grouping when a result there answers no open call, or too many messages come between", () => {
    const stray = [human("h"), call("c", ["a", "b"]), result("ta", "a"), note("n1"), result("tz", "z")];
    expect(shape(stray)).toEqual(["user:h@0-1", "tool_call:c,ta@1-3", "assistant:n1@3-4", "orphan:tz@4-5"]);
    const many = [
      human("h"),
      call("c", ["a", "b"]),
      result("ta", "a"),
      ...Array.from({ length: 9 }, (_, k) => note(`n${k}`)),
      result("tb", "b"),
    ];
    expect(groupMessages(many)[1]?.messages.map((m) => m.id)).toEqual(["c", "ta"]);
    expect(groupMessages(many).at(-1)?.kind).toBe("orphan");
  });

  // A second result for a call already answered, inside a later run (a tool retried after its
  // Command's note, a result written twice): dropped alone, as right after the call, and the other
  // results of the run still answer their calls. Was: the whole run and the rest of the unit were
  // left out (call b sent without its call, its result an orphan; after a review's note, the
  // whole exchange).
  it("a duplicate result inside a later run is an orphan of its own; the run still answers its calls", () => {
    const later = [human("h"), call("c", ["a", "b"]), result("ta", "a"), note("n1"), result("ta2", "a"), result("tb", "b"), human("h2")];
    expect(shape(later)).toEqual(["user:h@0-1", "tool_call:c,ta,tb,n1@1-6", "orphan:ta2@4-5", "user:h2@6-7"]);
    const reviewed = [human("h"), call("c", ["a", "b"]), say("n1"), result("ta", "a"), result("ta2", "a"), result("tb", "b"), human("h2")];
    expect(shape(reviewed)).toEqual(["user:h@0-1", "tool_call:c,ta,tb,n1@1-6", "orphan:ta2@4-5", "user:h2@6-7"]);
    for (const thread of [later, reviewed]) {
      expect(validateProviderRequest(sentMessages(dropOrphans(thread)))).toEqual([]);
      const all = groupMessages(thread);
      for (let end = thread.length; end > 0; ) {
        const unit = groupsEndingAt(thread, end);
        expect(unit.groups).toEqual(all.filter((g) => g.start >= unit.start && g.end <= end));
        end = unit.start;
      }
    }
    // A run of nothing but a duplicate takes nothing; a result of a foreign id still ends the unit before its run.
    expect(shape([human("h"), call("c", ["a", "b"]), result("ta", "a"), note("n1"), result("ta2", "a")])).toEqual([
      "user:h@0-1",
      "tool_call:c,ta@1-3",
      "assistant:n1@3-4",
      "orphan:ta2@4-5",
    ]);
    expect(
      shape([
        human("h"),
        call("c", ["a", "b"]),
        result("ta", "a"),
        note("n1"),
        result("ta2", "a"),
        result("tz", "z"),
        result("tb", "b"),
      ])[1],
    ).toBe("tool_call:c,ta@1-3");
  });

  it("groupsEndingAt finds the same groups from the end", () => {
    const thread = [
      human("h"),
      call("c", ["a", "b"]),
      result("ta", "a"),
      note("n1"),
      result("tb", "b"),
      human("h2"),
      call("c2", ["e"]),
      result("te", "e"),
      note("n2"),
    ];
    const all = groupMessages(thread);
    for (let end = thread.length; end > 0; ) {
      const unit = groupsEndingAt(thread, end);
      expect(unit.groups).toEqual(all.filter((g) => g.start >= unit.start && g.end <= end));
      end = unit.start;
    }
    const options = { cost: (g: { messages: readonly unknown[] }) => g.messages.length, limit: 6 };
    expect(selectView(thread, options).messages.map((m) => m.id)).toEqual(["h2", "c2", "te", "n2"]);
    expect(selectView(thread, { ...options, limit: 20 }).messages.map((m) => m.id)).toEqual([
      "h",
      "c",
      "ta",
      "tb",
      "n1",
      "h2",
      "c2",
      "te",
      "n2",
    ]);
  });
});

describe("Anthropic's native format: tool_use blocks as calls, a user message's tool_result blocks as results", () => {
  const use = (c: string) => ({ type: "tool_use", id: c, name: "weather", input: { c } });
  const res = (c: string) => ({ type: "tool_result", tool_use_id: c, content: `r-${c}` });
  /** An AI message whose calls are only `tool_use` blocks (`tool_calls` empty); `listed` of them also in `tool_calls`. */
  const uses = (id: string, callIds: string[], listed: string[] = []) =>
    new AIMessage({
      id,
      content: [{ type: "text", text: "확인해 볼게요" }, ...callIds.map(use)] as never,
      tool_calls: listed.map((c) => ({ id: c, name: "weather", args: { c }, type: "tool_call" as const })),
    });
  /** A user message of `tool_result` blocks, with the user's words after them when `words` is given. */
  const results = (id: string, callIds: string[], words?: string, wordsFirst = false) => {
    const said = words ? [{ type: "text", text: words }] : [];
    return new HumanMessage({ id, content: (wordsFirst ? [...said, ...callIds.map(res)] : [...callIds.map(res), ...said]) as never });
  };
  const sentIds = (m: BaseMessage) => [
    ...callIdsOf(m),
    ...toolResultIdsOf(m).map((c) => `<${c}`),
    ...(messageType(m) === "tool" ? [`<${(m as ToolMessage).tool_call_id}`] : []),
  ];
  const anthropicPairing = (messages: BaseMessage[]) =>
    validateProviderRequest(messages, { providers: ["anthropic"] }).filter((v) =>
      ["tool_result_without_call", "unanswered_tool_call", "duplicate_tool_result"].includes(v.rule),
    );
  const walkMatches = (thread: BaseMessage[]) => {
    const all = groupMessages(thread);
    for (let end = thread.length; end > 0; ) {
      const unit = groupsEndingAt(thread, end);
      expect(unit.groups).toEqual(all.filter((g) => g.start >= unit.start && g.end <= end));
      end = unit.start;
    }
  };

  it("pairs tool_use blocks with the tool_result blocks of the user messages right after them, as one group", () => {
    const thread = [human("h"), uses("a", ["x", "y"]), results("r1", ["y"]), results("r2", ["x"]), ai("done"), human("h2")];
    expect(shape(thread)).toEqual(["user:h@0-1", "tool_call:a,r1,r2@1-4", "assistant:done@4-5", "user:h2@5-6"]);
    // Sent as stored: the blocks are the calls; nothing is left out.
    expect(dropOrphans(thread)).toEqual(thread);
    expect(findOrphans(thread)).toEqual([]);
    expect(anthropicPairing(thread)).toEqual([]);
    walkMatches(thread);
  });

  it("a user message of results and the user's own words is the last message of the call's group, sent whole", () => {
    const thread = [human("h"), uses("a", ["x"]), results("r", ["x"], "고마워, 내일은?"), ai("answer")];
    const groups = groupMessages(thread);
    expect(shape(thread)).toEqual(["user:h@0-1", "tool_call:a,r@1-3", "assistant:answer@3-4"]);
    expect(groups[1]?.messages[1]).toBe(thread[2]);
    // A cut can only fall before the call or after the words: the newest user turn protects them.
    expect(protectedTailStart(groups)).toBe(0);
    walkMatches(thread);
  });

  it("isUserMessage: a user message of only tool_result blocks is the tool loop, not a user turn; with words of the user's own it is", () => {
    expect(isUserMessage(results("r", ["x"]))).toBe(false);
    expect(isUserMessage(results("r", ["x", "y"]))).toBe(false);
    // Blank text beside the results is no words (the view drops it).
    const blank = new HumanMessage({ id: "b", content: [res("x"), { type: "text", text: " \n" }] as never });
    expect(isUserMessage(blank)).toBe(false);
    expect(isUserMessage(results("en", ["x"], "Thanks, and tomorrow?"))).toBe(true);
    expect(isUserMessage(results("ko", ["x"], "고마워, 내일은?", true))).toBe(true);
    // The user's input as typed, even empty, is a user turn; a rendered context message is not.
    expect(isUserMessage(new HumanMessage({ id: "e", content: "" }))).toBe(true);
    expect(isUserMessage(contextMessage("[Facts]\nF"))).toBe(false);
  });

  it("an empty user input stays the newest user message through a tool loop of tool_result blocks, as through ToolMessages", () => {
    // Regression: the newest human message was the tool_result carrier, so the input the first
    // call sent as typed was an orphan from the loop's second call on (the view changed mid-run).
    for (const words of ["", [{ type: "text", text: " " }]]) {
      const input = new HumanMessage({ id: "in", content: words as never });
      const native = [human("h0"), ai("a0"), input, uses("a", ["x"]), results("r", ["x"])];
      const standard = [human("h0"), ai("a0"), input, call("a", ["x"]), result("r", "x")];
      expect(shape(native)).toEqual(["user:h0@0-1", "assistant:a0@1-2", "user:in@2-3", "tool_call:a,r@3-5"]);
      expect(shape(standard)).toEqual(shape(native));
      expect(protectedTailStart(groupMessages(native))).toBe(2);
      walkMatches(native);
    }
    // Korean: the user's words beside results are the newest user turn; an empty message before them is not.
    const ko = [human("h0"), new HumanMessage({ id: "e", content: "" }), uses("a", ["x"]), results("r", ["x"], "고마워")];
    expect(shape(ko)).toEqual(["user:h0@0-1", "orphan:e@1-2", "tool_call:a,r@2-4"]);
  });

  it("a user message with its words before its results is sent with the results first (Anthropic refuses text before them)", () => {
    const wordsFirst = new HumanMessage({ id: "r", content: [{ type: "text", text: "여기 결과:" }, res("x")] as never });
    const thread = [human("h"), uses("a", ["x"]), wordsFirst, ai("done")];
    expect(anthropicPairing(thread).map((v) => `${v.rule}@${v.index}`)).toEqual(["unanswered_tool_call@2"]);
    const sent = (groupMessages(thread)[1] as MessageGroup).messages[1] as BaseMessage;
    expect(sent.id).toBe("r");
    expect(sent.content).toEqual([res("x"), { type: "text", text: "여기 결과:" }]);
    expect(wordsFirst.content).toEqual([{ type: "text", text: "여기 결과:" }, res("x")]);
    expect(anthropicPairing(dropOrphans(thread))).toEqual([]);
    walkMatches(thread);
  });

  it("a tool_result block whose call is not right before it is never sent; the user's words beside it are", () => {
    // The call was cut away (a window, a summary, an import that starts mid-conversation).
    const thread = [results("r", ["x"]), ai("a1"), results("r2", ["y"], "and tomorrow?"), ai("a2"), human("h")];
    const groups = groupMessages(thread);
    expect(groups.map((g) => g.kind)).toEqual(["orphan", "assistant", "user", "assistant", "user"]);
    const words = groups[2]?.messages[0] as BaseMessage;
    expect(words).not.toBe(thread[2]);
    expect(words.id).toBe("r2");
    expect(words.content).toEqual([{ type: "text", text: "and tomorrow?" }]);
    expect((thread[2] as BaseMessage).content).toHaveLength(2);
    expect(findOrphans(thread)).toEqual(["orphan at 0..0: human", "tool_result blocks that answer no call in user message r2 at 2..2"]);
    expect(anthropicPairing(dropOrphans(thread))).toEqual([]);
    walkMatches(thread);
  });

  it("a duplicate or foreign tool_result is left out, the call and its own result kept (the same rule as ToolMessages)", () => {
    const dup = [human("h"), uses("a", ["x"]), results("r", ["x"]), results("again", ["x"]), ai("done")];
    expect(shape(dup)).toEqual(["user:h@0-1", "tool_call:a,r@1-4", "orphan:again@3-4", "assistant:done@4-5"]);
    // Both in one message: the message is sent without the second.
    const inOne = [human("h"), uses("a", ["x"]), results("r", ["x", "x", "zz"]), ai("done")];
    const group = groupMessages(inOne)[1] as MessageGroup;
    expect(group.kind).toBe("tool_call");
    expect((group.messages[1] as BaseMessage).content).toEqual([res("x")]);
    expect(anthropicPairing(dropOrphans(inOne))).toEqual([]);
    walkMatches(dup);
    walkMatches(inOne);
  });

  it("a tool_use block nothing answers is left out of the sent copy, its answered siblings and the text kept", () => {
    const partly = [human("h"), uses("a", ["x", "y"]), results("r", ["x"]), ai("done")];
    const group = groupMessages(partly)[1] as MessageGroup;
    expect(group.unanswered).toEqual(["y"]);
    expect(sentIds(group.messages[0] as BaseMessage)).toEqual(["x"]);
    expect(anthropicPairing(dropOrphans(partly))).toEqual([]);
    // None answered and none in tool_calls: the answer's text is sent, its blocks are not (a call the agent never ran).
    const none = [human("h"), uses("a", ["x"]), human("h2")];
    const groups = groupMessages(none);
    expect(groups.map((g) => g.kind)).toEqual(["user", "assistant", "user"]);
    expect(groups[1]?.messages[0]?.content).toEqual([{ type: "text", text: "확인해 볼게요" }]);
    walkMatches(partly);
    walkMatches(none);
  });

  it("tool_calls and tool_use blocks are one set of calls: a call in both is one call, results may mix ToolMessages and blocks", () => {
    const thread = [human("h"), uses("a", ["x", "y"], ["x"]), result("t", "x"), results("r", ["y"]), human("h2")];
    expect(shape(thread)).toEqual(["user:h@0-1", "tool_call:a,t,r@1-4", "user:h2@4-5"]);
    expect(callIdsOf(thread[1] as BaseMessage)).toEqual(["x", "y"]);
    // A listed call answered by nothing is unanswered as before: the message is an orphan.
    const unanswered = [human("h"), uses("a", ["x", "y"], ["x"]), results("r", ["y"]), human("h2")];
    expect(groupMessages(unanswered)[1]?.unanswered).toEqual(["x"]);
    walkMatches(thread);
    walkMatches(unanswered);
  });

  it("a run of results holding a stray ends the unit before it, so the walk from the end finds the same groups", () => {
    const thread = [human("h"), call("c", ["a", "b", "d"]), result("ta", "a"), ai("n1"), result("tb", "b"), ai("n2"), result("ta2", "a")];
    expect(shape(thread)).toEqual(["user:h@0-1", "tool_call:c,ta,tb,n1@1-5", "assistant:n2@5-6", "orphan:ta2@6-7"]);
    walkMatches(thread);
  });

  it("random threads of ToolMessages with messages between calls and results: groupsEndingAt walks to what groupMessages gives, every request valid", () => {
    const code = fc.constantFrom("h", "a", "cx", "cy", "cxy", "cxyz", "tx", "ty", "tz", "tw");
    fc.assert(
      fc.property(fc.array(code, { maxLength: 24 }), (codes) => {
        const thread = codes.map((c, i) => {
          if (c === "h") return human(`m${i}`);
          if (c === "a") return ai(`m${i}`);
          if (c.startsWith("c")) return call(`m${i}`, [...c.slice(1)]);
          return result(`m${i}`, c.slice(1));
        });
        walkMatches(thread);
        const sent = dropOrphans(thread);
        if (sent.length > 0) expect(validateProviderRequest(sentMessages(sent)).filter((v) => v.rule !== "first_message_role")).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });

  it("random threads: groupsEndingAt walks to what groupMessages gives, and the groups sent pair every call as Anthropic requires", () => {
    type Call = {
      kind: "call";
      calls: string[];
      listed: number;
      split: number;
      missing: number;
      dup: boolean;
      stray: boolean;
      words: boolean;
      wordsFirst: boolean;
      tool: boolean;
    };
    type Part = { kind: "user" } | { kind: "ai" } | Call;
    const part: fc.Arbitrary<Part> = fc.oneof(
      fc.constantFrom<Part>({ kind: "user" }, { kind: "ai" }),
      fc.record({
        kind: fc.constant("call" as const),
        // Ids repeat across calls, and one is not portable (`functions.lookup:0`, as Kimi K2 numbers its calls).
        calls: fc.uniqueArray(fc.constantFrom("x", "y", "functions.lookup:0"), { minLength: 1, maxLength: 3 }),
        listed: fc.nat({ max: 3 }),
        split: fc.nat({ max: 3 }),
        missing: fc.nat({ max: 4 }),
        dup: fc.boolean(),
        stray: fc.boolean(),
        words: fc.boolean(),
        wordsFirst: fc.boolean(),
        tool: fc.boolean(),
      }),
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 14 }), (parts) => {
        const thread: BaseMessage[] = [];
        let n = 0;
        const id = () => {
          n += 1;
          return `m${n}`;
        };
        for (const p of parts) {
          if (p.kind === "user") thread.push(human(id()));
          else if (p.kind === "ai") thread.push(ai(id()));
          else {
            thread.push(uses(id(), p.calls, p.calls.slice(0, p.listed)));
            const answered = p.calls.filter((_, k) => k + 1 !== p.missing);
            const first = answered.slice(0, p.split);
            const rest = answered.slice(p.split);
            if (first.length > 0) thread.push(p.tool ? result(id(), first[0] as string) : results(id(), first));
            if (p.dup && answered[0]) thread.push(results(id(), [answered[0]]));
            if (rest.length > 0 || p.words || p.stray)
              thread.push(results(id(), [...rest, ...(p.stray ? ["gone"] : [])], p.words ? "그리고 내일은?" : undefined, p.wordsFirst));
          }
        }
        const before = JSON.stringify(thread);
        walkMatches(thread);
        const sent = dropOrphans(thread);
        expect(anthropicPairing(sent)).toEqual([]);
        expect(findOrphans(sent)).toEqual([]);
        // As a request sends them: every tool_use id portable and unique across the request.
        const request = sentMessages(sent);
        const ids = validateProviderRequest(request, { providers: ["anthropic"] }).filter((v) => v.rule === "tool_call_id");
        expect([...anthropicPairing(request), ...ids]).toEqual([]);
        expect(JSON.stringify(thread)).toBe(before);
      }),
      { numRuns: 400 },
    );
  });

  describe("a user note stored between tool_use blocks and their tool_result message (as the ToolMessage form, `deferredResults`)", () => {
    const note = (id: string, text: string) => new HumanMessage({ id, content: text });

    it.each([
      ["en", "a note: I mean tomorrow"],
      ["ko", "메모: 내일 말이야"],
    ])("%s: the results are sent right after the call, the note after them, as for ToolMessages", (_, text) => {
      for (const listed of [[], ["x"]]) {
        const native = [human("h"), uses("a", ["x"], listed), note("n", text), results("r", ["x"]), ai("done")];
        const standard = [human("h"), call("a", ["x"]), note("n", text), result("r", "x"), ai("done")];
        expect(shape(native)).toEqual(["user:h@0-1", "tool_call:a,r,n@1-4", "assistant:done@4-5"]);
        expect(shape(native)).toEqual(shape(standard));
        const group = groupMessages(native)[1] as MessageGroup;
        expect(group.deferred).toBe(1);
        expect(group.unanswered).toBeUndefined();
        expect(sentIds(group.messages[0] as BaseMessage)).toEqual(["x"]);
        expect(findOrphans(native)).toEqual(["results after other messages at 1..3"]);
        expect(anthropicPairing(dropOrphans(native))).toEqual([]);
        walkMatches(native);
      }
    });

    it("results split over two user messages with a note between; the last with the user's words (sent results first) ends the group", () => {
      const thread = [
        human("h"),
        uses("a", ["x", "y"]),
        results("r1", ["x"]),
        note("n", "그리고 정오에 도착해"),
        results("r2", ["y"], "고마워", true),
        ai("done"),
      ];
      expect(shape(thread)).toEqual(["user:h@0-1", "tool_call:a,r1,r2,n@1-5", "assistant:done@5-6"]);
      const sent = (groupMessages(thread)[1] as MessageGroup).messages[2] as BaseMessage;
      expect(sent.content).toEqual([res("y"), { type: "text", text: "고마워" }]);
      expect(anthropicPairing(dropOrphans(thread))).toEqual([]);
      walkMatches(thread);
      // The note before the first result: every result after it.
      const first = [human("h"), uses("a", ["x", "y"]), note("n", "note"), results("r1", ["x"]), results("r2", ["y"]), human("h2")];
      expect(shape(first)).toEqual(["user:h@0-1", "tool_call:a,r1,r2,n@1-5", "user:h2@5-6"]);
      walkMatches(first);
    });

    it("a results message with the user's words ends the call's group: a note and results after it are not the call's", () => {
      const thread = [human("h"), uses("a", ["x", "y"]), results("r1", ["x"], "thanks"), note("n", "note"), results("r2", ["y"])];
      expect(shape(thread)).toEqual(["user:h@0-1", "tool_call:a,r1@1-3", "user:n@3-4", "orphan:r2@4-5"]);
      expect(groupMessages(thread)[1]?.unanswered).toEqual(["y"]);
      walkMatches(thread);
    });

    it("keeps the positional grouping when the message after the note holds only results of no open call, or an AI answer comes first", () => {
      // A result of another call after the note: the call has no result; the stray is never sent.
      const stray = [human("h"), uses("a", ["x"]), note("n", "note"), results("r", ["zz"]), ai("done")];
      expect(shape(stray)).toEqual(["user:h@0-1", "assistant:a@1-2", "user:n@2-3", "orphan:r@3-4", "assistant:done@4-5"]);
      // Beside a result of the call, as right after the call: sent without it.
      const beside = [human("h"), uses("a", ["x"]), note("n", "note"), results("r", ["x", "zz"]), ai("done")];
      expect(shape(beside)).toEqual(["user:h@0-1", "tool_call:a,r,n@1-4", "assistant:done@4-5"]);
      expect((groupMessages(beside)[1] as MessageGroup).messages[1]?.content).toEqual([res("x")]);
      walkMatches(beside);
      walkMatches(stray);
      // An AI answer right after the call means a model call saw it unanswered (as for ToolMessages).
      const answered = [human("h"), uses("a", ["x"]), ai("b"), results("r", ["x"])];
      expect(shape(answered)).toEqual(["user:h@0-1", "assistant:a@1-2", "assistant:b@2-3", "orphan:r@3-4"]);
      walkMatches(answered);
    });

    it("random native threads with notes between calls and results: groupsEndingAt walks to what groupMessages gives, every request valid for Anthropic", () => {
      const code = fc.constantFrom("h", "n", "a", "ux", "uxy", "cx", "cxy", "rx", "ry", "rxy", "rz", "wx", "wy");
      fc.assert(
        fc.property(fc.array(code, { maxLength: 20 }), (codes) => {
          const thread = codes.map((c, i) => {
            const ids = [...c.slice(1)];
            if (c === "h") return human(`m${i}`);
            if (c === "n") return note(`m${i}`, `노트 ${i}`);
            if (c === "a") return ai(`m${i}`);
            if (c.startsWith("u")) return uses(`m${i}`, ids);
            if (c.startsWith("c")) return uses(`m${i}`, ids, ids);
            if (c.startsWith("r")) return results(`m${i}`, ids);
            return results(`m${i}`, ids, "and tomorrow?", i % 2 === 0);
          });
          const before = JSON.stringify(thread);
          walkMatches(thread);
          const sent = dropOrphans(thread);
          expect(anthropicPairing(sent)).toEqual([]);
          if (sent.length > 0)
            expect(
              validateProviderRequest(sentMessages(sent), { providers: ["anthropic"] }).filter((v) => v.rule !== "first_message_role"),
            ).toEqual([]);
          expect(JSON.stringify(thread)).toBe(before);
        }),
        { numRuns: 3000 },
      );
    });
  });
});

describe("newestUserAt of an array changed in place", () => {
  it("a message replaced at the same length: the position a fresh scan gives", () => {
    const messages: BaseMessage[] = [new HumanMessage({ id: "u1", content: "q1" }), new AIMessage({ id: "a1", content: "a1" })];
    expect(newestUserAt(messages)).toBe(0);
    messages[1] = new HumanMessage({ id: "u2", content: "q2" });
    expect(newestUserAt(messages)).toBe(newestUserAt([...messages]));
    expect(newestUserAt(messages)).toBe(1);
  });
});
