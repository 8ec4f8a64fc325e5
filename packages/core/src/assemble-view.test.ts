import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import {
  assembleView,
  EMPTY_DECISIONS,
  isNoReplyMessage,
  NO_REPLY_ID_PREFIX,
  NO_REPLY_TEXT,
  tailContextOf,
  type ViewDecisions,
  withoutTailContext,
} from "./assemble-view.js";
import { findOrphans } from "./groups.js";
import { STABLE_TAIL_HEADER } from "./placement.js";
import { validateProviderRequest } from "./testing/provider-validator.js";
import { addContextBlocks, contextBlocksOf, extendSummaryCoverage, viewMessages, viewReport, withViewDecisions } from "./view-request.js";

const human = (id: string, text = id) => new HumanMessage({ id, content: text });
const ai = (id: string, text = id) => new AIMessage({ id, content: text });
const call = (id: string, callIds: string[]) =>
  new AIMessage({
    id,
    content: "",
    tool_calls: callIds.map((c) => ({ id: c, name: "lookup", args: { q: c }, type: "tool_call" as const })),
  });
const result = (id: string, callId: string) => new ToolMessage({ id, content: `result ${callId}`, tool_call_id: callId, name: "lookup" });
const ids = (messages: readonly BaseMessage[]) => messages.map((m) => m.id);
const decide = (d: Partial<ViewDecisions>): ViewDecisions => ({ ...EMPTY_DECISIONS, ...d });
const noSystem = new SystemMessage("");

/** Roles as a provider with strict alternation sees them. */
function roles(messages: readonly BaseMessage[]): string {
  return messages.map((m) => m.getType()).join(",");
}

describe("assembleView: no orphan of any kind (spec R4, R33)", () => {
  it("leaves out a stored result whose call is gone", () => {
    const thread = [result("t0", "gone"), human("h1"), ai("a1"), human("h2")];
    const view = assembleView(thread, noSystem, EMPTY_DECISIONS);
    expect(ids(view.messages)).toEqual(["h1", "a1", "h2"]);
    expect(view.report.orphanGroups).toBe(1);
  });

  it("never splits a call from its results when a cut lands between them", () => {
    const thread = [human("h1"), call("c1", ["x"]), result("t1", "x"), ai("a1"), human("h2")];
    // A cut whose first kept message is the result keeps the whole group, never half of it.
    const view = assembleView(
      thread,
      noSystem,
      decide({
        cuts: [{ producer: "t", reason: "window", firstKept: thread[2] as BaseMessage }],
        startOn: { value: "any", producer: "t" },
      }),
    );
    expect(ids(view.messages)).toEqual(["c1", "t1", "a1", "h2"]);
    expect(findOrphans(view.messages)).toEqual([]);
  });

  it("keeps what a partly answered parallel call answered; the call left without a result is not sent (R37)", () => {
    const thread = [human("h1"), call("c1", ["ok", "rejected"]), result("t1", "ok"), human("h2"), ai("a2"), human("h3")];
    const view = assembleView(thread, noSystem, EMPTY_DECISIONS);
    // "Which seat did I get?" is asked with the result that holds the seat.
    // Nothing answered the results before h2: core's reply goes between them (Bedrock alternation).
    expect(ids(view.messages)).toEqual(["h1", "c1", "t1", `${NO_REPLY_ID_PREFIX}t1`, "h2", "a2", "h3"]);
    expect((view.messages[1] as AIMessage).tool_calls?.map((c) => c.id)).toEqual(["ok"]);
    expect((thread[1] as AIMessage).tool_calls).toHaveLength(2); // the stored message is unchanged
    expect(findOrphans(view.messages)).toEqual([]);
    // An AI message none of whose calls was answered still goes whole.
    const none = [human("h1"), call("c1", ["a", "b"]), human("h2")];
    expect(ids(assembleView(none, noSystem, EMPTY_DECISIONS).messages)).toEqual(["h2"]); // h1 and h2 merged
  });

  it("leaves out a run of results answering two different AI messages, keeping the call with its own", () => {
    // c2's results run on into one answering c1's id: that stray goes, c2 and its result stay.
    const thread = [
      human("h1"),
      call("c1", ["x"]),
      result("t1", "x"),
      call("c2", ["y"]),
      result("t2", "y"),
      result("t1b", "x"),
      human("h2"),
    ];
    const view = assembleView(thread, noSystem, EMPTY_DECISIONS);
    expect(ids(view.messages)).toEqual(["h1", "c1", "t1", "c2", "t2", `${NO_REPLY_ID_PREFIX}t2`, "h2"]);
    expect(findOrphans(view.messages)).toEqual([]);
  });

  it("leaves out a duplicated result", () => {
    const thread = [human("h1"), call("c1", ["x"]), result("t1", "x"), result("t1-again", "x"), ai("a1"), human("h2")];
    const view = assembleView(thread, noSystem, EMPTY_DECISIONS);
    expect(ids(view.messages)).toEqual(["h1", "c1", "t1", "a1", "h2"]);
  });
});

describe("assembleView: one leading system message", () => {
  it("merges a stored head SystemMessage and a mid-thread one with the system prompt and the legacy_system block", () => {
    const thread = [
      new SystemMessage({ id: "s0", content: "Stored rules." }),
      human("h1"),
      ai("a1"),
      new SystemMessage("Later rule."),
      human("h2"),
    ];
    const view = assembleView(
      thread,
      new SystemMessage("Operator prompt."),
      decide({
        blocks: [{ kind: "summary", producer: "p", label: "Previous conversation summary", text: "S" }],
        mode: "legacy_system",
        systemSuffixes: ["NOTE"],
      }),
    );
    expect(view.systemMessage.text).toBe("Operator prompt.\n\nStored rules.\n\nLater rule.\n\nNOTE\n\n[Previous conversation summary]\nS");
    expect(view.system.text).toBe("Operator prompt.\n\nStored rules.\n\nLater rule.\n\nNOTE");
    expect(view.messages.some((m) => m.getType() === "system")).toBe(false);
    expect(view.report.mergedSystemMessages).toBe(2);
  });

  it("keeps system content blocks and their cache markers", () => {
    const system = new SystemMessage({ content: [{ type: "text", text: "Operator.", cache_control: { type: "ephemeral" } }] });
    const view = assembleView([new SystemMessage("Stored."), human("h1")], system, EMPTY_DECISIONS);
    expect(view.systemMessage.content).toEqual([
      { type: "text", text: "Operator.", cache_control: { type: "ephemeral" } },
      { type: "text", text: "\n\nStored." },
    ]);
  });
});

describe("assembleView: cuts, coverage and one stack-wide startOn", () => {
  const thread = [human("h1"), ai("a1"), human("h2"), call("c2", ["x"]), result("t2", "x"), ai("a2"), human("h3"), ai("a3"), human("h4")];

  it("a cap cut that drops the user group a startOn window began on still starts on a user message", () => {
    const window = { producer: "w", reason: "window" as const, firstKept: thread[2] as BaseMessage, limit: 7 };
    const cap = { producer: "c", reason: "cap" as const, firstKept: thread[3] as BaseMessage };
    const anyStart = assembleView(thread, noSystem, decide({ cuts: [window, cap], startOn: { value: "any", producer: "w" } }));
    expect(ids(anyStart.messages)[0]).toBe("c2");
    // No startOn stated: the default is "human".
    expect(ids(assembleView(thread, noSystem, decide({ cuts: [window, cap] })).messages)).toEqual(["h3", "a3", "h4"]);
    const human = assembleView(thread, noSystem, decide({ cuts: [window, cap], startOn: { value: "human", producer: "w" } }));
    expect(ids(human.messages)).toEqual(["h3", "a3", "h4"]);
  });

  it("never cuts into the newest user turn and the run in progress", () => {
    const running = [...thread, call("c4", ["y"]), result("t4", "y")];
    const cap = { producer: "c", reason: "cap" as const, firstKept: running[10] as BaseMessage };
    expect(ids(assembleView(running, noSystem, decide({ cuts: [cap] })).messages)).toEqual(["h4", "c4", "t4"]);
  });

  it("with a coverage the view is everything not covered; a cap past it is counted as unsummarized", () => {
    const window = { producer: "w", reason: "window" as const, firstKept: thread[6] as BaseMessage, limit: 3 };
    const coverage = { producer: "s", firstUncovered: thread[2] as BaseMessage };
    const covered = assembleView(thread, noSystem, decide({ cuts: [window], coverage }));
    expect(ids(covered.messages)).toEqual(["h2", "c2", "t2", "a2", "h3", "a3", "h4"]);
    expect(covered.report.unsummarizedDropped).toBe(0);
    expect(covered.report.windowFrom).toBe(6);
    const cap = { producer: "c", reason: "cap" as const, firstKept: thread[5] as BaseMessage };
    const capped = assembleView(thread, noSystem, decide({ cuts: [window, cap], coverage, startOn: { value: "any", producer: "w" } }));
    expect(ids(capped.messages)).toEqual(["a2", "h3", "a3", "h4"]);
    expect(capped.report.unsummarizedDropped).toBe(3);
    // With the default "human" the cap's start moves on to h3; a2 is counted too, never hidden.
    const cappedHuman = assembleView(thread, noSystem, decide({ cuts: [window, cap], coverage }));
    expect(ids(cappedHuman.messages)).toEqual(["h3", "a3", "h4"]);
    expect(cappedHuman.report.unsummarizedDropped).toBe(4);
  });

  it("the first startOn stated wins; the request carries it to every later cut", () => {
    const request = { messages: thread, systemMessage: noSystem };
    const first = withViewDecisions(request, [{ kind: "startOn", producer: "a", startOn: "human" }]);
    const second = withViewDecisions(first, [
      { kind: "startOn", producer: "b", startOn: "any" },
      { kind: "cut", producer: "cap", reason: "cap", firstKept: thread[7] as BaseMessage },
    ]);
    expect(viewReport(second).startOn).toBe("human");
    expect(ids(second.messages)).toEqual(["h4"]);
    expect(ids(viewMessages(second))).toEqual(["h4"]);
  });
});

describe("assembleView: roles every provider accepts", () => {
  it("merges a plain AI message into the AI message after it and leaves out an empty one", () => {
    const thread = [human("h1"), ai("a1", "Let me check."), call("c1", ["x"]), result("t1", "x"), ai("empty", ""), ai("a2"), human("h2")];
    const view = assembleView(thread, noSystem, EMPTY_DECISIONS);
    expect(roles(view.messages)).toBe("human,ai,tool,ai,human");
    expect(view.messages[1]?.id).toBe("c1");
    expect(view.messages[1]?.content).toBe("Let me check.");
    expect((view.messages[1] as AIMessage).tool_calls?.map((c) => c.id)).toEqual(["x"]);
  });

  // Anthropic with thinking on: "a final `assistant` message must start with a thinking block"
  // (https://github.com/anomalyco/opencode/issues/3077). Two agents in sequence on one thread: the
  // first's answer, then the thinking model's calls, merged into one final assistant message.
  it("a plain AI message merged into one that opens with thinking blocks: those blocks open the merged message, signatures kept", () => {
    const thinking = new AIMessage({
      id: "c1",
      content: [
        { type: "thinking", thinking: "check it", signature: "sig-1" },
        { type: "redacted_thinking", data: "opaque" },
        { type: "tool_use", id: "x", name: "lookup", input: { q: "x" } },
      ] as never,
      tool_calls: [{ id: "x", name: "lookup", args: { q: "x" }, type: "tool_call" }],
    });
    for (const draft of [
      ai("a1", "Draft: fares rose."),
      new AIMessage({ id: "a1", content: [{ type: "text", text: "Draft: fares rose." }] }),
    ]) {
      const view = assembleView([human("h1"), draft, thinking, result("t1", "x")], noSystem, EMPTY_DECISIONS);
      expect(roles(view.messages)).toBe("human,ai,tool");
      const blocks = view.messages[1]?.content as Array<Record<string, unknown>>;
      expect(blocks.map((b) => b.type)).toEqual(["thinking", "redacted_thinking", "text", "tool_use"]);
      expect(blocks[0]).toEqual({ type: "thinking", thinking: "check it", signature: "sig-1" });
      expect(blocks[2]?.text).toBe("Draft: fares rose.");
    }
    // A first message that opens with its own thinking keeps its place (the merged message already opens with thinking).
    const own = new AIMessage({
      id: "a1",
      content: [
        { type: "thinking", thinking: "draft", signature: "sig-0" },
        { type: "text", text: "Draft." },
      ] as never,
    });
    const merged = assembleView([human("h1"), own, thinking, result("t1", "x")], noSystem, EMPTY_DECISIONS).messages[1] as BaseMessage;
    expect((merged.content as Array<Record<string, unknown>>).map((b) => b.signature ?? b.type)).toEqual([
      "sig-0",
      "text",
      "sig-1",
      "redacted_thinking",
      "tool_use",
    ]);
  });

  it("puts the stable_tail context on the newest user message as one more block, in the request only", () => {
    const thread = [human("h1"), ai("a1"), human("h2"), call("c2", ["x"]), result("t2", "x")];
    const view = assembleView(
      thread,
      new SystemMessage("Operator."),
      decide({ blocks: [{ kind: "facts", producer: "f", label: "Facts", text: "F" }], mode: "stable_tail" }),
    );
    expect(view.systemMessage.text).toBe("Operator.");
    expect(roles(view.messages)).toBe("human,ai,human,ai,tool");
    const user = view.messages[2] as BaseMessage;
    expect(user.id).toBe("h2");
    expect(user.content).toEqual([
      { type: "text", text: "h2" },
      { type: "text", text: `\n\n${STABLE_TAIL_HEADER}\n\n[Facts]\nF` },
    ]);
    expect(tailContextOf(user)).toBe(`${STABLE_TAIL_HEADER}\n\n[Facts]\nF`);
    expect(withoutTailContext(user).content).toBe("h2");
    expect(view.report.tailContext).toBe(`\n\n${STABLE_TAIL_HEADER}\n\n[Facts]\nF`);
    // The stored message object is untouched.
    expect(thread[2]?.content).toBe("h2");
  });

  it("keeps the stable_tail context on the user's words through an Anthropic-native tool loop, never on its tool_result carrier", () => {
    // Regression: the carrier (a user message of only tool_result blocks) took the context at each
    // step of the loop, so the user's message changed between the loop's calls (a prompt cache miss).
    for (const [asked, look, result] of [
      ["What's the weather in Seoul?", "Let me check.", "sunny, 21C"],
      ["서울 날씨 어때?", "확인해 볼게요.", "맑음, 21도"],
    ] as const) {
      const question = new HumanMessage({ id: "q", content: asked });
      const use = new AIMessage({
        id: "c",
        content: [
          { type: "text", text: look },
          { type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Seoul" } },
        ] as never,
        tool_calls: [],
      });
      const carrier = new HumanMessage({ id: "r", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: result }] as never });
      const block = decide({ blocks: [{ kind: "facts", producer: "f", label: "Facts", text: "F" }], mode: "stable_tail" });
      const first = assembleView([question], noSystem, block);
      const loop = assembleView([question, use, carrier], noSystem, block);
      expect(ids(loop.messages)).toEqual(["q", "c", "r"]);
      // The user's message is sent the same on both calls, the carrier as stored.
      expect(loop.messages[0]?.content).toEqual(first.messages[0]?.content);
      expect(tailContextOf(loop.messages[0] as BaseMessage)).toBe(`${STABLE_TAIL_HEADER}\n\n[Facts]\nF`);
      expect(loop.messages[2]).toBe(carrier);
      expect(validateProviderRequest(loop.messages, { providers: ["anthropic"] })).toEqual([]);
    }
  });

  it("puts an AI message between tool results and a user message right after them (a run stopped before its reply)", () => {
    // recursionLimit mid tool loop: the last call is unanswered (an orphan), the results before it come last.
    const thread = [human("h1"), call("c1", ["x"]), result("t1", "x"), call("c2", ["y"]), human("h2")];
    const replaced = decide({ replacements: [{ producer: "t", original: thread[2] as BaseMessage, replacement: result("t1", "x") }] });
    for (const d of [EMPTY_DECISIONS, replaced]) {
      const view = assembleView(thread, noSystem, d);
      expect(roles(view.messages)).toBe("human,ai,tool,ai,human");
      const reply = view.messages[3] as BaseMessage;
      expect(isNoReplyMessage(reply)).toBe(true);
      expect(reply.id).toBe(`${NO_REPLY_ID_PREFIX}t1`);
      expect(reply.content).toBe(NO_REPLY_TEXT);
      expect(validateProviderRequest(view.messages)).toEqual([]);
      // Not a message of the view middlewares compute on, and never stored.
      expect(view.view.some(isNoReplyMessage)).toBe(false);
      expect(thread.some(isNoReplyMessage)).toBe(false);
    }
    // The run in progress (results last, the model about to answer) gets none.
    expect(roles(assembleView(thread.slice(0, 3), noSystem, EMPTY_DECISIONS).messages)).toBe("human,ai,tool");
    // A result without an id: the reply's id comes from its call id, the same in every process.
    const bare = new ToolMessage({ content: "r", tool_call_id: "x" });
    const again = assembleView([human("h1"), call("c1", ["x"]), bare, human("h2")], noSystem, EMPTY_DECISIONS);
    expect(again.messages[3]?.id).toBe(`${NO_REPLY_ID_PREFIX}x`);
  });

  it("a request changed by another middleware is assembled again with one reply, not two", () => {
    const thread = [human("h1"), call("c1", ["x"]), result("t1", "x"), human("h2")];
    const request = { messages: thread, systemMessage: noSystem };
    const first = withViewDecisions(request, []);
    const foreign = { ...first, messages: [...first.messages] };
    const again = withViewDecisions(foreign, []);
    expect(roles(again.messages)).toBe("human,ai,tool,ai,human");
    expect(ids(viewMessages(again))).toEqual(["h1", "c1", "t1", "h2"]);
  });

  it("is a pure function of its inputs", () => {
    const thread = [new SystemMessage("S"), human("h1"), call("c1", ["x"]), human("h2")];
    const snapshot = JSON.stringify(thread);
    const d = decide({ startOn: { value: "human", producer: "t" } });
    expect(JSON.stringify(assembleView(thread, noSystem, d).messages)).toBe(JSON.stringify(assembleView(thread, noSystem, d).messages));
    expect(JSON.stringify(thread)).toBe(snapshot);
  });
});

describe("assembleView: an empty user message (spec R4, R33)", () => {
  // What OpenAI answers and Anthropic, Gemini and Bedrock refuse (langchain-ai/langchain#35081).
  const EMPTY_FORMS: Array<[string, unknown]> = [
    ['""', ""],
    ["[]", []],
    ["blank string", "  \n "],
    [
      "blank text blocks",
      [
        { type: "text", text: "" },
        { type: "text", text: " \u3000" },
      ],
    ],
    ["blank string parts", ["", "   "]],
  ];
  const emptyUser = (id: string, content: unknown) => new HumanMessage({ id, content: content as never });

  for (const [form, content] of EMPTY_FORMS) {
    it(`an older one (${form}) is left out and the AI messages around it merge; every provider accepts the request`, () => {
      const thread = [
        human("h1", "안녕하세요"),
        ai("a1", "Hi."),
        emptyUser("e", content),
        ai("a2", "Anything else?"),
        human("h2", "Book a seat"),
      ];
      const view = assembleView(thread, noSystem, EMPTY_DECISIONS);
      expect(roles(view.messages)).toBe("human,ai,human");
      expect(view.messages[1]?.id).toBe("a2");
      expect(view.messages[1]?.content).toBe("Hi.\n\nAnything else?");
      expect(validateProviderRequest(view.messages)).toEqual([]);
      expect(ids(view.view)).toEqual(["h1", "a1", "a2", "h2"]);
      expect(view.report.orphanGroups).toBe(1);
      // The stored thread is not changed.
      expect(thread[2]?.content).toEqual(content);
    });
  }

  it("the start rule skips one that opens the view as it skips a leading AI message", () => {
    const thread = [emptyUser("e", ""), ai("a0", "Hello?"), human("h1"), ai("a1"), human("h2")];
    const view = assembleView(thread, noSystem, EMPTY_DECISIONS);
    expect(ids(view.messages)).toEqual(["h1", "a1", "h2"]);
    expect(validateProviderRequest(view.messages)).toEqual([]);
    // A window whose first kept message is the empty one starts on the next user message.
    const cut = decide({ cuts: [{ producer: "t", reason: "window", firstKept: thread[0] as BaseMessage, limit: 4 }] });
    expect(ids(assembleView(thread, noSystem, cut).messages)).toEqual(["h1", "a1", "h2"]);
    // startOn "any" (OpenAI): the AI message after it opens the view.
    const any = decide({ startOn: { value: "any", producer: "t" } });
    expect(ids(assembleView(thread, noSystem, any).messages)).toEqual(["a0", "h1", "a1", "h2"]);
  });

  it("after tool results, and before another user message: roles still alternate", () => {
    const thread = [human("h1"), call("c1", ["x"]), result("t1", "x"), emptyUser("e", ""), ai("a1", "Done."), human("h2")];
    expect(roles(assembleView(thread, noSystem, EMPTY_DECISIONS).messages)).toBe("human,ai,tool,ai,human");
    const unanswered = [human("h1"), ai("a1"), emptyUser("e", []), human("h2", "again")];
    const view = assembleView(unanswered, noSystem, EMPTY_DECISIONS);
    expect(ids(view.messages)).toEqual(["h1", "a1", "h2"]);
    expect(validateProviderRequest(view.messages)).toEqual([]);
    const afterResults = [human("h1"), call("c1", ["x"]), result("t1", "x"), emptyUser("e", ""), human("h2")];
    const stopped = assembleView(afterResults, noSystem, EMPTY_DECISIONS);
    expect(roles(stopped.messages)).toBe("human,ai,tool,ai,human");
    expect(isNoReplyMessage(stopped.messages[3] as BaseMessage)).toBe(true);
    expect(validateProviderRequest(stopped.messages)).toEqual([]);
  });

  it("the newest user message is sent as typed, even empty (the user's current input); the next turn leaves it out", () => {
    const thread = [human("h1"), ai("a1"), emptyUser("e", "")];
    const view = assembleView(thread, noSystem, EMPTY_DECISIONS);
    expect(ids(view.messages)).toEqual(["h1", "a1", "e"]);
    expect(view.messages[2]?.content).toBe("");
    expect(validateProviderRequest(view.messages).map((v) => `${v.provider}:${v.rule}`)).toEqual([
      "anthropic:empty_content",
      "gemini:empty_content",
      "bedrock:empty_content",
    ]);
    // OpenAI answered it; the thread goes on with another provider.
    const next = [...thread, ai("a2", "Did you mean to send something?"), human("h2", "Yes: my seat")];
    const later = assembleView(next, noSystem, EMPTY_DECISIONS);
    expect(ids(later.messages)).toEqual(["h1", "a2", "h2"]);
    expect(later.messages[1]?.content).toBe("a1\n\nDid you mean to send something?");
    expect(validateProviderRequest(later.messages)).toEqual([]);
  });

  it("a blank text block beside a picture is left out of the sent copy; the stored message keeps it", () => {
    const picture = { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } };
    const stored = new HumanMessage({ id: "p", content: [{ type: "text", text: "" }, picture] as never });
    for (const thread of [
      [human("h1"), ai("a1"), stored],
      [human("h1"), ai("a1"), stored, ai("a2"), human("h2")],
    ]) {
      const view = assembleView(thread, noSystem, EMPTY_DECISIONS);
      const sent = view.messages.find((m) => m.id === "p") as BaseMessage;
      expect(sent.content).toEqual([picture]);
      expect(validateProviderRequest(view.messages)).toEqual([]);
      expect((stored.content as unknown[]).length).toBe(2);
    }
  });
});

describe("blank text in AI messages and tool results (Anthropic, Gemini refuse a blank text block)", () => {
  const callsOf = (...callIds: string[]) => callIds.map((c) => ({ id: c, name: "lookup", args: { q: c }, type: "tool_call" as const }));
  const toolUse = (c: string) => ({ type: "tool_use", id: c, name: "lookup", input: { q: c } });
  const blank = { type: "text", text: "" };

  it("an AI message's blank text block beside tool_use, beside text, or alone with its calls is left out of the sent copy; the stored thread keeps it", () => {
    const withUse = new AIMessage({ id: "a1", content: [blank, toolUse("c1")] as never, tool_calls: callsOf("c1") });
    const beside = new AIMessage({
      id: "a2",
      content: [
        { type: "text", text: "It is 42." },
        { type: "text", text: " \n" },
      ] as never,
    });
    const onlyBlank = new AIMessage({ id: "a3", content: [{ type: "text", text: " " }] as never, tool_calls: callsOf("c3") });
    const blankString = new AIMessage({ id: "a4", content: "  ", tool_calls: callsOf("c4") });
    const thread = [
      human("h1"),
      withUse,
      result("r1", "c1"),
      beside,
      human("h2"),
      onlyBlank,
      result("r3", "c3"),
      blankString,
      result("r4", "c4"),
      ai("a5", "Done."),
      human("h3"),
    ];
    const before = JSON.stringify(thread.map((m) => m.content));
    const stored = [...thread];
    // Refused as stored: the case is real.
    expect(validateProviderRequest(thread, { providers: ["anthropic"] }).map((v) => v.index)).toEqual([1, 3, 5, 7]);
    const view = assembleView(thread, noSystem, EMPTY_DECISIONS);
    const sent = new Map(view.messages.map((m) => [m.id, m]));
    expect(sent.get("a1")?.content).toEqual([toolUse("c1")]);
    expect(sent.get("a2")?.content).toEqual([{ type: "text", text: "It is 42." }]);
    expect(sent.get("a3")?.content).toBe("");
    expect(sent.get("a4")?.content).toBe("");
    for (const id of ["a1", "a3", "a4"])
      expect((sent.get(id) as AIMessage).tool_calls).toEqual((thread.find((m) => m.id === id) as AIMessage).tool_calls);
    expect(ids(view.messages)).toEqual(ids(thread));
    expect(validateProviderRequest(view.messages)).toEqual([]);
    // Never the stored thread: same objects, same content.
    expect(thread.every((m, i) => m === stored[i])).toBe(true);
    expect(JSON.stringify(thread.map((m) => m.content))).toBe(before);
    // One copy per stored message: a second assembly hands on the same objects.
    const again = assembleView(thread, noSystem, EMPTY_DECISIONS);
    expect(again.messages.every((m, i) => m === view.messages[i])).toBe(true);
  });

  it("a tool result's blank text block is left out (Anthropic sends it inside tool_result); a result of only blank blocks is sent as an empty string", () => {
    const twoBlocks = new ToolMessage({
      id: "r1",
      content: [blank, { type: "text", text: "42" }] as never,
      tool_call_id: "c1",
      name: "lookup",
      status: "error",
    });
    const onlyBlank = new ToolMessage({ id: "r2", content: [{ type: "text", text: " " }] as never, tool_call_id: "c2", name: "lookup" });
    const thread = [human("h1"), call("a1", ["c1", "c2"]), twoBlocks, onlyBlank, ai("a2"), human("h2")];
    expect(validateProviderRequest(thread).map((v) => `${v.provider}@${v.index}`)).toEqual(["anthropic@2", "anthropic@3"]);
    const view = assembleView(thread, noSystem, EMPTY_DECISIONS);
    const r1 = view.messages[2] as ToolMessage;
    const r2 = view.messages[3] as ToolMessage;
    expect([r1.content, r1.tool_call_id, r1.status, r1.name]).toEqual([[{ type: "text", text: "42" }], "c1", "error", "lookup"]);
    expect([r2.content, r2.tool_call_id]).toEqual(["", "c2"]);
    expect(validateProviderRequest(view.messages)).toEqual([]);
    expect((twoBlocks.content as unknown[]).length).toBe(2);
  });

  it("a window cut whose first kept message is the sent copy (no id) cuts where the stored message is", () => {
    const copyFirst = new AIMessage({ content: [blank, toolUse("c1")] as never, tool_calls: callsOf("c1") });
    const thread = [human("h1"), ai("a1"), human("h2"), copyFirst, result("r1", "c1"), ai("a2"), human("h3")];
    const sentCopy = assembleView(thread, noSystem, EMPTY_DECISIONS).view[3] as BaseMessage;
    expect(sentCopy).not.toBe(copyFirst);
    const cut = decide({ startOn: { value: "any", producer: "t" }, cuts: [{ producer: "t", reason: "window", firstKept: sentCopy }] });
    expect(assembleView(thread, noSystem, cut).report.keptFrom).toBe(3);
  });
});

describe("withViewDecisions with context blocks", () => {
  it("gives the request addContextBlocks after withViewDecisions gives, in every mode", () => {
    const thread = [human("h1"), ai("a1"), human("h2"), ai("a2"), human("h3")];
    const request = { messages: thread, systemMessage: new SystemMessage("Be brief.") };
    const decisions = [{ kind: "coverage" as const, producer: "s", firstUncovered: thread[2] as BaseMessage }];
    const blocks = [
      { kind: "summary", producer: "s", label: "Previous conversation summary", text: "h1 and a1" },
      { kind: "facts", producer: "f", label: "Facts", text: "  " },
    ];
    for (const mode of [undefined, "legacy_system", "stable_tail"] as const) {
      const once = withViewDecisions(request, decisions, { blocks, mode });
      const twice = addContextBlocks(withViewDecisions(request, decisions), blocks, { mode });
      expect(once.messages).toEqual(twice.messages);
      expect(once.systemMessage.content).toEqual(twice.systemMessage.content);
      expect(contextBlocksOf(once)).toEqual(contextBlocksOf(twice));
      expect(viewReport(once)).toEqual(viewReport(twice));
      // The summary was placed (the comparison is not between two requests without it).
      expect(JSON.stringify([once.systemMessage.content, once.messages.map((m) => m.content)])).toContain("h1 and a1");
    }
  });
});

describe("extendSummaryCoverage: a cap has the summary cover what it would cut (R3, R33)", () => {
  const thread = [human("u1"), ai("a1"), human("u2"), ai("a2"), human("u3"), ai("a3"), human("u4")];
  const request = () => ({ messages: thread, systemMessage: new SystemMessage("You help.") });
  const SUMMARIZE = "threadwise/summarize";
  const block = (text: string) => ({ kind: "summary", producer: SUMMARIZE, label: "Previous conversation summary", text });

  it("replaces the coverage and the summary block with the extension's, and the view starts after it", async () => {
    const asked: BaseMessage[] = [];
    const covered = withViewDecisions(
      request(),
      [
        {
          kind: "coverage",
          producer: SUMMARIZE,
          firstUncovered: thread[2] as BaseMessage,
          extend: async (through) => {
            asked.push(through);
            return { firstUncovered: thread[4] as BaseMessage, block: block("u1 to a2") };
          },
        },
      ],
      { blocks: [block("u1 and a1")] },
    );
    expect(ids(viewMessages(covered))).toEqual(["u2", "a2", "u3", "a3", "u4"]);
    const extended = await extendSummaryCoverage(covered, thread[4] as BaseMessage);
    expect(asked).toEqual([thread[4]]);
    expect(ids(viewMessages(extended as typeof covered))).toEqual(["u3", "a3", "u4"]);
    expect(contextBlocksOf(extended as typeof covered)).toEqual([block("u1 to a2")]);
    expect(String((extended as typeof covered).systemMessage.content)).toContain("u1 to a2");
    expect(String((extended as typeof covered).systemMessage.content)).not.toContain("u1 and a1");
    expect(viewReport(extended as typeof covered).unsummarizedDropped).toBe(0);
    // The stored thread is not touched.
    expect(ids(thread)).toEqual(["u1", "a1", "u2", "a2", "u3", "a3", "u4"]);
  });

  it("is undefined without a summary that can extend, or when the summary does not extend", async () => {
    expect(await extendSummaryCoverage(request(), thread[4] as BaseMessage)).toBeUndefined();
    const plain = withViewDecisions(request(), [{ kind: "coverage", producer: SUMMARIZE, firstUncovered: thread[2] as BaseMessage }]);
    expect(await extendSummaryCoverage(plain, thread[4] as BaseMessage)).toBeUndefined();
    const failing = withViewDecisions(request(), [
      { kind: "coverage", producer: SUMMARIZE, firstUncovered: thread[2] as BaseMessage, extend: async () => undefined },
    ]);
    expect(await extendSummaryCoverage(failing, thread[4] as BaseMessage)).toBeUndefined();
  });
});
