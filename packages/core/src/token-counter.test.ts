import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { characterTokenCounter } from "./testing/index.js";
import {
  BINARY_BLOCK_TOKENS,
  createTokenCounter,
  DEFAULT_ENCODING,
  IMAGE_BLOCK_TOKENS,
  MESSAGE_OVERHEAD_TOKENS,
  messageText,
  resolveEncoding,
} from "./token-counter.js";

describe("resolveEncoding", () => {
  it("takes the encoding, else the model's, else o200k_base", () => {
    expect(resolveEncoding(undefined, "cl100k_base")).toBe("cl100k_base");
    expect(resolveEncoding("gpt-4o-mini")).toBe("o200k_base");
    expect(resolveEncoding("openai:gpt-4")).toBe("cl100k_base");
    expect(resolveEncoding("gpt-3.5-turbo")).toBe("cl100k_base");
    expect(resolveEncoding("some-local-model")).toBe(DEFAULT_ENCODING);
    expect(resolveEncoding()).toBe("o200k_base");
  });
});

describe("createTokenCounter with js-tiktoken", () => {
  const counter = createTokenCounter();

  it("counts text with o200k_base and adds framing per message", () => {
    expect(counter.encoding).toBe("o200k_base");
    expect(counter.countText("hello world")).toBe(2);
    expect(counter.countText("")).toBe(0);
    expect(counter.countMessage(new HumanMessage("hello world"))).toBe(2 + MESSAGE_OVERHEAD_TOKENS);
    expect(createTokenCounter({ model: "gpt-4" }).encoding).toBe("cl100k_base");
  });

  it("counts text blocks, tool-call names and arguments, and the message name", () => {
    const blocks = new HumanMessage({
      content: [
        { type: "text", text: "hello world" },
        { type: "text", text: "hello world" },
      ],
    });
    expect(counter.countMessage(blocks)).toBe(4 + MESSAGE_OVERHEAD_TOKENS);
    const withCall = new AIMessage({ content: "", tool_calls: [{ id: "1", name: "get_weather", args: { city: "Seoul" } }] });
    const args = counter.countText(JSON.stringify({ city: "Seoul" }));
    expect(counter.countMessage(withCall)).toBe(MESSAGE_OVERHEAD_TOKENS + counter.countText("get_weather") + args);
    const named = new ToolMessage({ content: "sunny", tool_call_id: "1", name: "get_weather" });
    expect(counter.countMessage(named)).toBe(MESSAGE_OVERHEAD_TOKENS + counter.countText("sunny") + counter.countText("get_weather"));
  });

  it("charges a fixed cost for images and binary blocks, whatever their size", () => {
    const image = (data: string) =>
      new HumanMessage({
        content: [
          { type: "text", text: "look" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${data}` } },
        ],
      });
    const small = counter.countMessage(image("AAAA"));
    expect(small).toBe(MESSAGE_OVERHEAD_TOKENS + counter.countText("look") + IMAGE_BLOCK_TOKENS);
    expect(counter.countMessage(image("A".repeat(200_000)))).toBe(small);
    const file = new HumanMessage({ content: [{ type: "file", mimeType: "application/pdf", data: "JVBER".repeat(1000) }] as never });
    expect(counter.countMessage(file)).toBe(MESSAGE_OVERHEAD_TOKENS + BINARY_BLOCK_TOKENS);
  });

  it("never crashes on unknown block types and skips long binary-looking strings at any depth", () => {
    const odd = new HumanMessage({
      content: [
        { type: "document", source: { type: "base64", data: "Q".repeat(50_000) }, title: "report" },
        { type: "mystery" },
        null,
        42,
      ] as never,
    });
    const tokens = counter.countMessage(odd);
    const expected =
      MESSAGE_OVERHEAD_TOKENS +
      counter.countText(JSON.stringify({ type: "document", source: { type: "base64" }, title: "report" })) +
      counter.countText(JSON.stringify({ type: "mystery" }));
    expect(tokens).toBe(expected);
    const circular: Record<string, unknown> = { type: "loop" };
    circular.self = circular;
    expect(() => counter.countMessage(new HumanMessage({ content: [circular] as never }))).not.toThrow();
  });

  it("counts tool schemas as OpenAI would receive them, once per tool object", () => {
    const lookup = tool(async () => "x", { name: "lookup", description: "Find a booking", schema: z.object({ id: z.string() }) });
    const calls: string[] = [];
    const spy = createTokenCounter({
      countText: (t) => {
        calls.push(t);
        return t.length;
      },
    });
    const first = spy.countTools([lookup]);
    expect(calls).toHaveLength(1);
    expect(JSON.parse(calls[0] as string)).toMatchObject({ type: "function", function: { name: "lookup", description: "Find a booking" } });
    expect(first).toBe((calls[0] as string).length);
    expect(spy.countTools([lookup, lookup])).toBe(first * 2);
    expect(calls).toHaveLength(1);
    expect(counter.countTools([lookup])).toBeGreaterThan(10);
  });

  it("the system prompt counts like any message", () => {
    expect(counter.countMessage(new SystemMessage("You are terse."))).toBe(MESSAGE_OVERHEAD_TOKENS + counter.countText("You are terse."));
  });
});

describe("caching", () => {
  it("counts a message once per object and once per id across fresh objects (a checkpointer's copies)", () => {
    const texts: string[] = [];
    const counter = createTokenCounter({
      countText: (t) => {
        texts.push(t);
        return t.length;
      },
    });
    const original = new HumanMessage({ id: "m1", content: "hello" });
    expect(counter.countMessage(original)).toBe(5 + MESSAGE_OVERHEAD_TOKENS);
    counter.countMessage(original);
    counter.countMessage(new HumanMessage({ id: "m1", content: "hello" }));
    expect(texts).toEqual(["hello"]);
    // Same id, different length: recounted.
    expect(counter.countMessage(new HumanMessage({ id: "m1", content: "hello there" }))).toBe(11 + MESSAGE_OVERHEAD_TOKENS);
    // No id: cached by object only.
    const anonymous = new HumanMessage("abc");
    counter.countMessage(anonymous);
    counter.countMessage(anonymous);
    counter.countMessage(new HumanMessage("abc"));
    expect(texts).toEqual(["hello", "hello there", "abc", "abc"]);
  });

  it("a counting thread of 2,000 messages recounted with fresh objects tokenizes nothing new", () => {
    const texts: string[] = [];
    const counter = createTokenCounter({
      countText: (t) => {
        texts.push(t);
        return 1;
      },
    });
    const make = () =>
      Array.from({ length: 2000 }, (_, i) => new HumanMessage({ id: `m${i}`, content: [{ type: "text", text: `message ${i}` }] }));
    expect(counter.countMessages(make())).toBe(2000 * (1 + MESSAGE_OVERHEAD_TOKENS));
    expect(texts).toHaveLength(2000);
    counter.countMessages(make());
    expect(texts).toHaveLength(2000);
  });

  it("characterTokenCounter is ceil(characters / 4) plus framing", () => {
    const c = characterTokenCounter();
    expect(c.countText("abcde")).toBe(2);
    expect(c.countMessage(new HumanMessage("abcde"))).toBe(2 + MESSAGE_OVERHEAD_TOKENS);
    expect(
      messageText(
        new HumanMessage({
          content: [
            { type: "text", text: "a" },
            { type: "image_url", image_url: { url: "x" } },
            { type: "text", text: "b" },
          ],
        }),
      ),
    ).toBe("a\nb");
  });
});
