/**
 * The prompt-cache simulator of bench/cost.ts (bench/support/cache-sim.ts) on hand-made request
 * sequences: each provider rule (minimum length, 128-token steps, breakpoints, lookback, TTL,
 * prices) changes a figure here, so the bench's cost figures rest on checked arithmetic.
 */
import { describe, expect, it } from "vitest";
import {
  anthropicRules,
  BreakpointCache,
  CacheRuleError,
  geminiRules,
  openaiRules,
  PrefixCache,
  simulate,
  summarizeCost,
} from "../bench/support/cache-sim.js";
import { countO200k } from "../bench/support/openai-wire.js";

/** A text of exactly `n` o200k_base tokens ("a a a ..."). */
const words = (n: number) => `a${" a".repeat(n - 1)}`;
const msg = (role: string, content: string) => ({ role, content });
const tokensOfMessage = (m: object) => countO200k(JSON.stringify(m));
const SECOND = 1000;
const MINUTE = 60 * SECOND;

describe("OpenAI automatic prefix caching", () => {
  const system = msg("system", words(1500));
  const first = [system, msg("user", "hello")];
  const second = [...first, msg("assistant", "hi there"), msg("user", "how are you")];

  it("caches nothing on the first request and below 1,024 tokens", () => {
    const small = [msg("system", words(500)), msg("user", "hello")];
    const [a, b] = simulate("openai", [
      { body: { messages: small }, at: 0 },
      { body: { messages: [...small, msg("user", "again")] }, at: SECOND },
    ]);
    expect(a?.cachedTokens).toBe(0);
    expect(b?.cachedTokens).toBe(0);
    expect(b?.cost).toBe(b?.tokens);
  });

  it("reuses the shared prefix in 128-token steps past 1,024, at half price by default", () => {
    const [a, b] = simulate("openai", [
      { body: { messages: first }, at: 0 },
      { body: { messages: second }, at: SECOND },
    ]);
    const shared = tokensOfMessage(system) + tokensOfMessage(first[1] as object);
    const expected = 1024 + Math.floor((shared - 1024) / 128) * 128;
    expect(a?.cachedTokens).toBe(0);
    expect(b?.cachedTokens).toBe(expected);
    expect(b?.cost).toBe((b?.tokens ?? 0) - expected + 0.5 * expected);
  });

  it("a shared prefix of 1,100 tokens caches 1,024; of 1,200, 1,152", () => {
    // System message of 1,092 text tokens + 8 framing tokens = 1,100 tokens.
    const at1100 = msg("system", words(1092));
    expect(tokensOfMessage(at1100)).toBe(1100);
    const cache = new PrefixCache(openaiRules());
    cache.send({ body: { messages: [at1100, msg("user", "x")] }, at: 0 });
    expect(cache.send({ body: { messages: [at1100, msg("user", "y y y")] }, at: 1 }).cachedTokens).toBe(1024);
    const at1200 = msg("system", words(1192));
    const other = new PrefixCache(openaiRules());
    other.send({ body: { messages: [at1200, msg("user", "x")] }, at: 0 });
    expect(other.send({ body: { messages: [at1200, msg("user", "z")] }, at: 1 }).cachedTokens).toBe(1152);
  });

  it("a changed first byte loses the whole prefix", () => {
    const [, b] = simulate("openai", [
      { body: { messages: first }, at: 0 },
      { body: { messages: [msg("system", `b ${words(1500)}`), ...second.slice(1)] }, at: SECOND },
    ]);
    expect(b?.cachedTokens).toBe(0);
  });

  it("an entry unused for longer than the TTL is gone; a hit keeps it alive", () => {
    const cache = new PrefixCache(openaiRules());
    cache.send({ body: { messages: first }, at: 0 });
    expect(cache.send({ body: { messages: second }, at: 6 * MINUTE }).cachedTokens).toBe(0);
    expect(cache.send({ body: { messages: second }, at: 10 * MINUTE }).cachedTokens).toBeGreaterThan(1024);
  });

  it("the cached price ratio is a parameter", () => {
    const [, b] = simulate(
      "openai",
      [
        { body: { messages: first }, at: 0 },
        { body: { messages: second }, at: SECOND },
      ],
      { cachedPriceRatio: 0.1 },
    );
    expect(b?.cost).toBeCloseTo((b?.tokens ?? 0) - 0.9 * (b?.cachedTokens ?? 0), 6);
  });

  it("tools are part of the prefix: a changed tool schema loses everything after it", () => {
    const tools = [{ type: "function", function: { name: "t", description: words(1200), parameters: {} } }];
    const changed = [{ type: "function", function: { name: "u", description: words(1200), parameters: {} } }];
    const [, same] = simulate("openai", [
      { body: { tools, messages: first }, at: 0 },
      { body: { tools, messages: second }, at: 1 },
    ]);
    const [, other] = simulate("openai", [
      { body: { tools, messages: first }, at: 0 },
      { body: { tools: changed, messages: second }, at: 1 },
    ]);
    expect(same?.cachedTokens).toBeGreaterThan(2600);
    expect(other?.cachedTokens).toBe(0);
  });
});

describe("Gemini implicit caching", () => {
  it("needs 2,048 tokens and bills cached tokens at 0.1x", () => {
    const short = [msg("system", words(1500)), msg("user", "hello")];
    const long = [msg("system", words(3000)), msg("user", "hello")];
    const [, a] = simulate("gemini", [
      { body: { messages: short }, at: 0 },
      { body: { messages: [...short, msg("user", "x")] }, at: 1 },
    ]);
    expect(a?.cachedTokens).toBe(0);
    const [, b] = simulate("gemini", [
      { body: { messages: long }, at: 0 },
      { body: { messages: [...long, msg("user", "x")] }, at: 1 },
    ]);
    const shared = tokensOfMessage(long[0] as object) + tokensOfMessage(long[1] as object);
    expect(b?.cachedTokens).toBe(shared);
    expect(b?.cost).toBeCloseTo((b?.tokens ?? 0) - 0.9 * shared, 6);
    expect(geminiRules().minimumTokens).toBe(2048);
  });
});

describe("Anthropic explicit breakpoints", () => {
  const systemText = words(1500);
  const systemBlock = (marked: boolean) => [
    { type: "text", text: systemText, ...(marked ? { cache_control: { type: "ephemeral" } } : {}) },
  ];
  const systemTokens = countO200k(JSON.stringify({ type: "text", text: systemText }));
  const textTokens = (text: string) => countO200k(JSON.stringify({ type: "text", text }));

  it("without a breakpoint nothing is cached", () => {
    const body = { system: systemText, messages: [msg("user", "hello")] };
    const [, b] = simulate("anthropic", [
      { body, at: 0 },
      { body, at: 1 },
    ]);
    expect(b?.cachedTokens).toBe(0);
    expect(b?.writtenTokens).toBe(0);
  });

  it("a system breakpoint writes once (1.25x), then reads (0.1x); the rest is plain input", () => {
    const [a, b] = simulate("anthropic", [
      { body: { system: systemBlock(true), messages: [msg("user", "hello")] }, at: 0 },
      { body: { system: systemBlock(true), messages: [msg("user", "bye")] }, at: 1 },
    ]);
    expect(a?.writtenTokens).toBe(systemTokens);
    expect(a?.cost).toBeCloseTo(1.25 * systemTokens + textTokens("hello"), 6);
    expect(b?.cachedTokens).toBe(systemTokens);
    expect(b?.writtenTokens).toBe(0);
    expect(b?.cost).toBeCloseTo(0.1 * systemTokens + textTokens("bye"), 6);
  });

  it("the minimum is per model family: 1,500 tokens cache on Sonnet, not on Haiku", () => {
    const body = { system: systemBlock(true), messages: [msg("user", "hello")] };
    const haiku = new BreakpointCache(anthropicRules("haiku"));
    haiku.send({ body, at: 0 });
    const second = haiku.send({ body, at: 1 });
    expect(second.cachedTokens).toBe(0);
    expect(second.writtenTokens).toBe(0);
    expect(second.cost).toBe(second.tokens);
    const sonnet = new BreakpointCache(anthropicRules("sonnet"));
    sonnet.send({ body, at: 0 });
    expect(sonnet.send({ body, at: 1 }).cachedTokens).toBe(systemTokens);
  });

  it("top-level cache_control marks the last block; the next call finds it by lookback and writes the new part", () => {
    const turn1 = [msg("user", "hello")];
    const turn2 = [...turn1, msg("assistant", "hi"), msg("user", "how are you")];
    const [a, b] = simulate("anthropic", [
      { body: { cache_control: { type: "ephemeral" }, system: systemText, messages: turn1 }, at: 0 },
      { body: { cache_control: { type: "ephemeral" }, system: systemText, messages: turn2 }, at: 1 },
    ]);
    const prefix1 = systemTokens + textTokens("hello");
    expect(a?.writtenTokens).toBe(prefix1);
    expect(b?.cachedTokens).toBe(prefix1);
    expect(b?.writtenTokens).toBe(textTokens("hi") + textTokens("how are you"));
  });

  it("a breakpoint on a block the next request does not repeat (unstored context) is never read", () => {
    const context = msg("user", "[Context from memory] facts of turn 1");
    const call1 = { cache_control: { type: "ephemeral" }, system: systemText, messages: [msg("user", "hello"), context] };
    const call2 = {
      cache_control: { type: "ephemeral" },
      system: systemText,
      messages: [msg("user", "hello"), msg("assistant", "hi"), msg("user", "more"), msg("user", "[Context from memory] facts of turn 2")],
    };
    const [, b] = simulate("anthropic", [
      { body: call1, at: 0 },
      { body: call2, at: 1 },
    ]);
    expect(b?.cachedTokens).toBe(0);
    // The same two calls with a second breakpoint on the system prompt keep the system cached.
    const [, c] = simulate("anthropic", [
      { body: { ...call1, system: systemBlock(true) }, at: 0 },
      { body: { ...call2, system: systemBlock(true) }, at: 1 },
    ]);
    expect(c?.cachedTokens).toBe(systemTokens);
  });

  it("the lookback covers 20 block boundaries: 25 new blocks after the old breakpoint miss", () => {
    const base = [msg("user", "hello")];
    const grown = (n: number) => [...base, ...Array.from({ length: n }, (_, i) => msg(i % 2 === 0 ? "assistant" : "user", `m${i}`))];
    const run = (n: number) =>
      simulate("anthropic", [
        { body: { cache_control: { type: "ephemeral" }, system: systemText, messages: base }, at: 0 },
        { body: { cache_control: { type: "ephemeral" }, system: systemText, messages: grown(n) }, at: 1 },
      ])[1];
    expect(run(19)?.cachedTokens).toBe(systemTokens + textTokens("hello"));
    expect(run(25)?.cachedTokens).toBe(0);
  });

  it("cache_control is not part of the cached bytes: moving the marker keeps the hit", () => {
    const messages = [{ role: "user", content: [{ type: "text", text: "hello", cache_control: { type: "ephemeral" } }] }];
    const moved = [
      { role: "user", content: [{ type: "text", text: "hello" }] },
      { role: "assistant", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }] },
    ];
    const [, b] = simulate("anthropic", [
      { body: { system: systemText, messages }, at: 0 },
      { body: { system: systemText, messages: moved }, at: 1 },
    ]);
    expect(b?.cachedTokens).toBe(systemTokens + textTokens("hello"));
  });

  it("entries live 5 minutes, refreshed by each hit; the 1-hour TTL costs 2x to write", () => {
    const body = { system: systemBlock(true), messages: [msg("user", "hello")] };
    const cache = new BreakpointCache(anthropicRules());
    cache.send({ body, at: 0 });
    expect(cache.send({ body, at: 4 * MINUTE }).cachedTokens).toBe(systemTokens);
    expect(cache.send({ body, at: 8 * MINUTE }).cachedTokens).toBe(systemTokens);
    expect(cache.send({ body, at: 14 * MINUTE }).cachedTokens).toBe(0);
    const hour = {
      system: [{ type: "text", text: systemText, cache_control: { type: "ephemeral", ttl: "1h" } }],
      messages: [msg("user", "x")],
    };
    const long = new BreakpointCache(anthropicRules());
    const first = long.send({ body: hour, at: 0 });
    expect(first.cost).toBeCloseTo(2 * systemTokens + textTokens("x"), 6);
    expect(long.send({ body: hour, at: 50 * MINUTE }).cachedTokens).toBe(systemTokens);
  });

  it("more than 4 breakpoints is rejected", () => {
    const marked = (text: string) => ({ role: "user", content: [{ type: "text", text, cache_control: { type: "ephemeral" } }] });
    const body = { system: systemBlock(true), messages: [marked("a"), marked("b"), marked("c"), marked("d")] };
    expect(() => simulate("anthropic", [{ body, at: 0 }])).toThrow(CacheRuleError);
  });
});

describe("summarizeCost", () => {
  it("counts internal calls in the cost per main call", () => {
    const summary = summarizeCost([
      { kind: "main", tokens: 100, cachedTokens: 0, writtenTokens: 0, cost: 100 },
      { kind: "internal", tokens: 50, cachedTokens: 0, writtenTokens: 0, cost: 50 },
      { kind: "main", tokens: 100, cachedTokens: 60, writtenTokens: 0, cost: 70 },
    ]);
    expect(summary).toEqual({ mainCalls: 2, internalCalls: 1, tokensPerCall: 125, cachedPerCall: 30, costPerCall: 110 });
  });
});
