import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { tailContextOf } from "./assemble-view.js";
import { cacheBreakpointsFor, isAnthropicModel, MAX_CACHE_BREAKPOINTS, withCacheBreakpoints } from "./cache-breakpoints.js";
import { addContextBlocks } from "./view-request.js";

type Block = Record<string, unknown>;
const blocks = (content: unknown): Block[] =>
  typeof content === "string" ? [{ type: "text", text: content }] : ((content as Block[] | undefined) ?? []);
const marked = (content: unknown) => blocks(content).filter((b) => b.cache_control !== undefined);
const marks = (request: { systemMessage: SystemMessage; messages: BaseMessage[] }) =>
  marked(request.systemMessage.content).length + request.messages.reduce((n: number, m: BaseMessage) => n + marked(m.content).length, 0);

const operator = new SystemMessage({ content: [{ type: "text", text: "You are a helpful airline agent." }] });
const thread = [
  new HumanMessage({ content: "book a flight", id: "u1" }),
  new AIMessage({ content: "Which date?", id: "a1" }),
  new HumanMessage({ content: "May 20", id: "u2" }),
];
const facts = { kind: "facts", producer: "test", label: "Facts about the user", text: "- lives in Seoul" };
const summary = { kind: "summary", producer: "test", label: "Previous conversation summary", text: "They talked about flights." };

describe("withCacheBreakpoints", () => {
  it("marks the operator's system prompt and the newest user message's own text, never the stable_tail context", () => {
    const request = addContextBlocks({ systemMessage: operator, messages: thread }, [facts], { mode: "stable_tail" });
    const out = withCacheBreakpoints(request);
    expect(marked(out.systemMessage.content)).toHaveLength(1);
    expect(marked(out.systemMessage.content)[0]?.text).toBe("You are a helpful airline agent.");
    const u2 = out.messages.find((m: BaseMessage) => m.id === "u2") as BaseMessage;
    expect(tailContextOf(u2)).toContain("lives in Seoul");
    const [own, context] = blocks(u2.content);
    expect(own).toEqual({ type: "text", text: "May 20", cache_control: { type: "ephemeral" } });
    expect(context?.cache_control).toBeUndefined();
    expect(marks(out)).toBe(2);
  });

  it("leaves every input object as it was (marked messages are copies with the same id)", () => {
    const request = { systemMessage: operator, messages: [...thread] };
    const before = JSON.stringify([operator.content, thread.map((m: BaseMessage) => m.content)]);
    const out = withCacheBreakpoints(request);
    expect(JSON.stringify([operator.content, thread.map((m: BaseMessage) => m.content)])).toBe(before);
    expect(out.messages[2]).not.toBe(thread[2]);
    expect(out.messages[2]?.id).toBe("u2");
    expect(out.messages[0]).toBe(thread[0]);
  });

  it("splits a string system prompt from the context placement appended to it, marking the operator's part", () => {
    const request = addContextBlocks({ systemMessage: new SystemMessage("Operator rules."), messages: thread }, [summary], {
      mode: "legacy_system",
    });
    const out = withCacheBreakpoints(request, { markSystemContext: true });
    const system = blocks(out.systemMessage.content);
    expect(system).toHaveLength(2);
    expect(system[0]).toEqual({ type: "text", text: "Operator rules.", cache_control: { type: "ephemeral" } });
    expect(String(system[1]?.text)).toContain("[Previous conversation summary]");
    expect(system[1]?.cache_control).toEqual({ type: "ephemeral" });
    // The text the model sees is unchanged.
    expect(system.map((b) => b.text).join("")).toBe(blocks(request.systemMessage.content)[0]?.text);
  });

  it("in a tool loop marks the newest user message and the newest tool result, with the 1-hour TTL when asked", () => {
    const loop = [
      ...thread,
      new AIMessage({ content: "", id: "a2", tool_calls: [{ id: "c1", name: "search", args: { date: "May 20" }, type: "tool_call" }] }),
      new ToolMessage({ content: "HAT136 at 11:00", tool_call_id: "c1", id: "t1", name: "search" }),
    ];
    const request = addContextBlocks({ systemMessage: operator, messages: loop }, [facts], { mode: "stable_tail" });
    const out = withCacheBreakpoints(request, { ttl: "1h" });
    const ids = out.messages.filter((m: BaseMessage) => marked(m.content).length > 0).map((m: BaseMessage) => m.id);
    expect(ids).toEqual(["u2", "t1"]);
    const tool = out.messages.find((m: BaseMessage) => m.id === "t1") as ToolMessage;
    expect(tool.tool_call_id).toBe("c1");
    expect(marked(tool.content)[0]?.cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
    expect(marks(out)).toBe(3);
  });

  it("keeps a marked message's additional_kwargs and response_metadata (tool results and user messages)", () => {
    const loop = [
      new HumanMessage({ content: "book a flight", id: "u1", additional_kwargs: { source: "web" }, response_metadata: { lang: "en" } }),
      new AIMessage({ content: "", id: "a1", tool_calls: [{ id: "c1", name: "search", args: {}, type: "tool_call" }] }),
      new ToolMessage({
        content: "HAT136 at 11:00",
        tool_call_id: "c1",
        id: "t1",
        name: "search",
        status: "success",
        artifact: { rows: 1 },
        additional_kwargs: { cached: true },
        response_metadata: { latencyMs: 12 },
      }),
    ];
    const tool = withCacheBreakpoints({ systemMessage: operator, messages: loop }).messages[2] as ToolMessage;
    const user = withCacheBreakpoints({ systemMessage: operator, messages: loop.slice(0, 1) }).messages[0] as HumanMessage;
    expect(marked(user.content)).toHaveLength(1);
    expect(marked(tool.content)).toHaveLength(1);
    expect(user.additional_kwargs).toEqual({ source: "web" });
    expect(user.response_metadata).toEqual({ lang: "en" });
    expect([tool.tool_call_id, tool.status, tool.artifact]).toEqual(["c1", "success", { rows: 1 }]);
    expect(tool.additional_kwargs).toEqual({ cached: true });
    expect(tool.response_metadata).toEqual({ latencyMs: 12 });
  });

  it("in an Anthropic-native tool loop marks the user's message before the tail and the newest tool_result carrier, as with ToolMessages", () => {
    for (const result of ["HAT136 at 11:00", "11시 HAT136편"]) {
      const loop = [
        ...thread,
        new AIMessage({
          content: [{ type: "tool_use", id: "toolu_1", name: "search", input: { date: "May 20" } }] as never,
          id: "a2",
          tool_calls: [],
        }),
        new HumanMessage({ content: [{ type: "tool_result", tool_use_id: "toolu_1", content: result }] as never, id: "r1" }),
      ];
      const request = addContextBlocks({ systemMessage: operator, messages: loop }, [facts], { mode: "stable_tail" });
      const out = withCacheBreakpoints(request);
      const ids = out.messages.filter((m: BaseMessage) => marked(m.content).length > 0).map((m: BaseMessage) => m.id);
      expect(ids).toEqual(["u2", "r1"]);
      const user = out.messages.find((m: BaseMessage) => m.id === "u2") as BaseMessage;
      expect(tailContextOf(user)).toBeDefined();
      expect(marked(user.content).map((b) => b.text)).toEqual(["May 20"]);
      const carrier = out.messages.find((m: BaseMessage) => m.id === "r1") as BaseMessage;
      expect(marked(carrier.content)).toEqual([
        { type: "tool_result", tool_use_id: "toolu_1", content: result, cache_control: { type: "ephemeral" } },
      ]);
      expect(marks(out)).toBe(3);
    }
  });

  it(`never exceeds ${MAX_CACHE_BREAKPOINTS} breakpoints: marks already present count`, () => {
    const premarked = (id: string, text: string) =>
      new HumanMessage({ id, content: [{ type: "text", text, cache_control: { type: "ephemeral" } }] });
    const request = { systemMessage: operator, messages: [premarked("x", "a"), premarked("y", "b"), premarked("z", "c"), ...thread] };
    const out = withCacheBreakpoints(request);
    expect(marks(out)).toBe(MAX_CACHE_BREAKPOINTS);
    const full = { systemMessage: operator, messages: [premarked("w", "d"), ...request.messages] };
    expect(withCacheBreakpoints(full)).toBe(full);
  });
});

describe("cacheBreakpointsFor", () => {
  const anthropic = { getName: () => "ChatAnthropic" };
  const openai = { getName: () => "ChatOpenAI" };

  it("leaves requests for other models alone", () => {
    const request = { systemMessage: operator, messages: thread, model: openai };
    expect(cacheBreakpointsFor(request, [])).toBe(request);
    expect(isAnthropicModel({ getName: () => "ConfigurableModel", _defaultConfig: { modelProvider: "anthropic" } })).toBe(true);
  });

  it("takes over anthropicPromptCachingMiddleware's top-level cache_control and its TTL", () => {
    const request = {
      systemMessage: operator,
      messages: thread,
      model: anthropic,
      modelSettings: { cache_control: { type: "ephemeral", ttl: "1h" }, temperature: 0 },
    };
    const out = cacheBreakpointsFor(request, []);
    expect(out.modelSettings).toEqual({ temperature: 0 });
    expect(marked(out.systemMessage.content)[0]?.cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
  });

  it("marks the context rendered into the system prompt only when it changes rarely", () => {
    const withSummary = addContextBlocks({ systemMessage: operator, messages: thread }, [summary], { mode: "legacy_system" });
    const withFacts = addContextBlocks({ systemMessage: operator, messages: thread }, [summary, facts], { mode: "legacy_system" });
    const count = (r: typeof withSummary) =>
      marked(cacheBreakpointsFor({ ...r, model: anthropic }, [summary]).systemMessage.content).length;
    expect(count(withSummary)).toBe(2);
    expect(marked(cacheBreakpointsFor({ ...withFacts, model: anthropic }, [summary, facts]).systemMessage.content)).toHaveLength(1);
  });
});
