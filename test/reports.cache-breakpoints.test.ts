/**
 * Anthropic prompt-cache breakpoints under the stack, read from the HTTP body `ChatAnthropic` sends.
 *
 * - https://github.com/agentjido/req_llm/issues/503 "anthropic_prompt_cache adds cache_control to
 *   every tool, exceeding Anthropic's 4-block limit" and
 *   https://github.com/continuedev/continue/pull/6937 "add maximum 4 cache control blocks for
 *   anthropic" (`A maximum of 4 blocks with cache_control may be provided. Found 5.`: the limit
 *   counts the tools, the system prompt and the messages together).
 *
 * - https://github.com/vellum-ai/vellum-assistant/pull/22191,
 *   https://github.com/Kocoro-lab/Shannon/pull/169, https://github.com/theopenco/llmgateway/pull/2629
 *   and https://github.com/cnighswonger/claude-code-cache-fix/issues/44: `a ttl='1h' cache_control
 *   block must not come after a ttl='5m' cache_control block. Note that blocks are processed in the
 *   following order: tools, system, messages` (injected 1h marks after a caller's 5m one).
 *
 * `@langchain/anthropic` documents `tool(fn, { extras: { cache_control } })` to cache the tool
 * definitions. `cacheBreakpoints()` counted the marks already on the system prompt and the messages
 * but not on the tools, so a tool's mark plus its own four made five; and it wrote its own TTL
 * whatever the marks before and after it held.
 */
import { ChatAnthropic } from "@langchain/anthropic";
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { cacheBreakpoints, memoryStack } from "@threadwise/memory";
import { type AgentMiddleware, createAgent, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { summarizerModel } from "./support/report-agent.js";

type Body = { system?: unknown; tools?: unknown[]; messages: Array<{ role: string; content: unknown }> };

/** The TTLs of the marks in Anthropic's processing order (tools, system, messages): "1h", or "5m" for any other. */
function ttls(body: Body): string[] {
  const out: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) for (const v of value) walk(v);
    else if (value !== null && typeof value === "object") {
      const mark = (value as { cache_control?: { ttl?: string } }).cache_control;
      if (mark) out.push(mark.ttl === "1h" ? "1h" : "5m");
      for (const [k, v] of Object.entries(value)) if (k !== "cache_control") walk(v);
    }
  };
  walk(body.tools);
  walk(body.system);
  walk(body.messages);
  return out;
}

/** `cache_control` marks anywhere in `value` (system blocks, tool definitions, message blocks). */
function marks(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + marks(v), 0);
  if (value === null || typeof value !== "object") return 0;
  const own = "cache_control" in value && (value as { cache_control?: unknown }).cache_control ? 1 : 0;
  return own + Object.entries(value).reduce((n, [k, v]) => (k === "cache_control" ? n : n + marks(v)), 0);
}

/** A ChatAnthropic whose HTTP calls are answered here: a `lookup` call for "look ..." turns, else text. */
function anthropicModel() {
  const bodies: Body[] = [];
  let n = 0;
  const fetch = async (_url: unknown, init?: { body?: unknown }) => {
    const body = JSON.parse(String(init?.body)) as Body;
    bodies.push(body);
    n += 1;
    const last = body.messages.at(-1);
    const text = typeof last?.content === "string" ? last.content : JSON.stringify(last?.content);
    const endsInResult = Array.isArray(last?.content) && (last.content as Array<{ type?: string }>).some((b) => b.type === "tool_result");
    const content =
      !endsInResult && text.includes("look")
        ? [{ type: "tool_use", id: `toolu_${n}`, name: "lookup", input: { q: `q${n}` } }]
        : [{ type: "text", text: `answer ${n}` }];
    return new Response(
      JSON.stringify({
        id: `msg_${n}`,
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content,
        stop_reason: content[0]?.type === "tool_use" ? "tool_use" : "end_turn",
        usage: { input_tokens: 10, output_tokens: 5 },
      }),
      { status: 200, headers: { "content-type": "application/json" } },
    );
  };
  const model = new ChatAnthropic({ model: "claude-sonnet-4-5", apiKey: "test-key", maxRetries: 0, clientOptions: { fetch } as never });
  return { model, bodies };
}

describe("public reports: Anthropic's limit of 4 cache breakpoints", () => {
  it("a tool definition marked with cache_control counts: every request carries at most 4 marks", async () => {
    const lookup = tool(async ({ q }: { q: string }) => `result for ${q}`, {
      name: "lookup",
      description: "Looks a record up.",
      schema: z.object({ q: z.string() }),
      extras: { cache_control: { type: "ephemeral" } },
    });
    const { model, bodies } = anthropicModel();
    const summarizer = summarizerModel();
    const stack = memoryStack({
      windowSize: 4,
      summarizeThreshold: 6,
      models: { summarize: summarizer.model as never },
      // The summary at the head (its end marked: it changes rarely), recall in the tail: the stack
      // marks the system prompt, the summary, the newest user message and a loop's newest result.
      promptContextMode: "cache_aware",
      recallMaxTokens: 100,
      logger: false,
      env: {},
    });
    const middleware: AgentMiddleware[] = [...stack.middleware, cacheBreakpoints()];
    const agent = createAgent({
      model,
      tools: [lookup],
      systemPrompt: "You are an airline agent.",
      checkpointer: stack.checkpointer,
      middleware,
    });
    const config = { configurable: { thread_id: "breakpoints" } };
    for (const text of [
      "hello: booking QX7Z",
      "look up booking QX7Z",
      "thanks",
      "look up the fare of QX7Z",
      "and the seat?",
      "look up the gate of QX7Z",
      "look up QX7Z again",
    ])
      await agent.invoke({ messages: [new HumanMessage(text)] }, config);
    expect(bodies.length).toBeGreaterThan(8);
    // The tool's own mark is sent on every request.
    for (const body of bodies) expect(marks(body.tools)).toBe(1);
    const most = Math.max(...bodies.map((body) => marks(body)));
    expect(most).toBeLessThanOrEqual(4);
    // The stack still marks where it can: the system prompt and the newest user message.
    expect(bodies.some((body) => marks(body.system) + marks(body.messages) >= 2)).toBe(true);
  });

  // Each case: a 5m mark the caller put before the stack's marks, with the stack's TTL 1h.
  const cases = {
    "a tool marked with the default TTL": { toolMark: { type: "ephemeral" }, systemMark: undefined },
    "the agent's system prompt marked with the default TTL": { toolMark: undefined, systemMark: { type: "ephemeral" } },
  };
  for (const [name, { toolMark, systemMark }] of Object.entries(cases)) {
    it(`cacheBreakpoints({ ttl: "1h" }) after ${name}: no 1h mark comes after a 5m one`, async () => {
      const lookup = tool(async ({ q }: { q: string }) => `result for ${q}`, {
        name: "lookup",
        description: "Looks a record up.",
        schema: z.object({ q: z.string() }),
        ...(toolMark ? { extras: { cache_control: toolMark } } : {}),
      });
      const { model, bodies } = anthropicModel();
      const stack = memoryStack({ windowSize: 4, summarize: false, recallMaxTokens: false, logger: false, env: {} });
      const middleware: AgentMiddleware[] = [...stack.middleware, cacheBreakpoints({ ttl: "1h" })];
      const agent = createAgent({
        model,
        tools: [lookup],
        systemPrompt: systemMark
          ? new SystemMessage({ content: [{ type: "text", text: "You are an airline agent.", cache_control: systemMark }] as never })
          : "You are an airline agent.",
        checkpointer: stack.checkpointer,
        middleware,
      });
      const config = { configurable: { thread_id: `ttl-${name}` } };
      for (const text of ["hello", "look up booking QX7Z", "thanks"]) await agent.invoke({ messages: [new HumanMessage(text)] }, config);
      expect(bodies.length).toBeGreaterThan(3);
      for (const body of bodies) {
        const order = ttls(body);
        expect(order[0], JSON.stringify(order)).toBe("5m");
        expect(order.join(","), "a 1h mark after a 5m one").not.toMatch(/5m.*1h/);
        expect(order.length).toBeLessThanOrEqual(4);
      }
      // The stack still marks: the caller's mark is not the only one.
      expect(bodies.some((body) => ttls(body).length >= 2)).toBe(true);
    });
  }
});
