import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { getEncoding } from "js-tiktoken";
import { tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { anthropicImageTokens, OPENAI_IMAGE_DEFAULT_TOKENS, PDF_PAGE_TOKENS } from "./content-block-tokens.js";
import { characterTokenCounter } from "./testing/index.js";
import { tokenize } from "./text-analysis.js";
import {
  contentText,
  createTokenCounter,
  DEFAULT_ENCODING,
  MESSAGE_OVERHEAD_TOKENS,
  messageText,
  NAME_OVERHEAD_TOKENS,
  resolveEncoding,
  TEXT_BLOCK_SEPARATOR,
  TOOL_CALL_OVERHEAD_TOKENS,
  TOOLS_OVERHEAD_TOKENS,
  tokenSegments,
} from "./token-counter.js";
import { renderToolDefinitions } from "./tool-definitions.js";

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

describe("createTokenCounter (gpt-tokenizer, checked against js-tiktoken)", () => {
  const counter = createTokenCounter();

  it("counts as tiktoken does, English, Korean, code and special-token strings as plain text", () => {
    const reference = { o200k_base: getEncoding("o200k_base"), cl100k_base: getEncoding("cl100k_base") };
    const texts = [
      "My name is Mina and I live in Seoul.",
      "제 이름은 민지예요. 저는 서울에 살고 간호사로 일해요.",
      'function f(x) {\n  return { "a": [1, 2, 3] };\n}',
      "hello <|endoftext|> world <|im_start|>user",
      "😀 ñ é   spaced\t\ttabs",
    ];
    for (const [encoding, tiktoken] of Object.entries(reference)) {
      const c = createTokenCounter({ encoding: encoding as "o200k_base" | "cl100k_base" });
      for (const text of texts) expect([encoding, text, c.countText(text)]).toEqual([encoding, text, tiktoken.encode(text, [], []).length]);
    }
  });

  it("loads each encoding's own rank table: every name gpt-tokenizer knows counts as its resolveEncoding's table does, an unknown name throws", async () => {
    const { GptEncoding } = await import("gpt-tokenizer/GptEncoding");
    const { resolveEncoding: gptTokenizerRanks } = await import("gpt-tokenizer/resolveEncoding");
    const texts = [
      "My name is Mina and I live in Seoul.",
      "제 이름은 민지예요.",
      'function f(x) {\n    return { "a": [1, 2, 3] };\n}',
      "   spaced\t\ttabs",
    ];
    for (const encoding of ["gpt2", "r50k_base", "p50k_base", "p50k_edit", "cl100k_base", "o200k_base", "o200k_harmony"] as const) {
      const reference = GptEncoding.getEncodingApi(encoding, () => gptTokenizerRanks(encoding));
      const c = createTokenCounter({ encoding: encoding as "o200k_base" });
      for (const text of texts) {
        expect([encoding, text, c.countText(text)]).toEqual([
          encoding,
          text,
          reference.encode(text, { allowedSpecial: new Set(), disallowedSpecial: new Set() }).length,
        ]);
      }
    }
    expect(() => createTokenCounter({ encoding: "o300k_base" as "o200k_base" }).countText("hello")).toThrow(/o300k_base/);
  });

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
    expect(counter.countMessage(withCall)).toBe(
      MESSAGE_OVERHEAD_TOKENS + counter.countText("get_weather") + args + TOOL_CALL_OVERHEAD_TOKENS,
    );
    // A ToolMessage sends its name and its tool_call_id too (both are fields of the wire message).
    const named = new ToolMessage({ content: "sunny", tool_call_id: "1", name: "get_weather" });
    expect(counter.countMessage(named)).toBe(
      MESSAGE_OVERHEAD_TOKENS +
        counter.countText("sunny") +
        counter.countText("get_weather") +
        NAME_OVERHEAD_TOKENS +
        counter.countText("1"),
    );
  });

  it("never tokenizes image or file bytes: an unreadable image costs OpenAI's default, a PDF without pages one page", () => {
    const image = (data: string) =>
      new HumanMessage({
        content: [
          { type: "text", text: "look" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${data}` } },
        ],
      });
    const small = counter.countMessage(image("AAAA"));
    expect(small).toBe(MESSAGE_OVERHEAD_TOKENS + counter.countText("look") + OPENAI_IMAGE_DEFAULT_TOKENS);
    expect(counter.countMessage(image("A".repeat(200_000)))).toBe(small);
    const file = new HumanMessage({ content: [{ type: "file", mimeType: "application/pdf", data: "JVBER".repeat(1000) }] as never });
    expect(counter.countMessage(file)).toBe(MESSAGE_OVERHEAD_TOKENS + PDF_PAGE_TOKENS);
  });

  it("never crashes on unknown block types and skips long binary-looking strings at any depth", () => {
    const odd = new HumanMessage({
      content: [{ type: "mystery", source: { type: "base64", data: "Q".repeat(50_000) }, title: "report" }, null, 42] as never,
    });
    const tokens = counter.countMessage(odd);
    const expected =
      MESSAGE_OVERHEAD_TOKENS + counter.countText(JSON.stringify({ type: "mystery", source: { type: "base64" }, title: "report" }));
    expect(tokens).toBe(expected);
    const circular: Record<string, unknown> = { type: "loop" };
    circular.self = circular;
    expect(() => counter.countMessage(new HumanMessage({ content: [circular] as never }))).not.toThrow();
  });

  it("counts tool schemas as OpenAI renders them (TypeScript definitions), each tool rendered once", () => {
    const lookup = tool(async () => "x", {
      name: "lookup",
      description: "Find a booking",
      schema: z.object({ id: z.string().describe("Booking id"), cabin: z.enum(["economy", "business"]).optional() }),
    });
    expect(renderToolDefinitions([lookup])).toBe(
      [
        "namespace functions {",
        "",
        "// Find a booking",
        "type lookup = (_: {",
        "// Booking id",
        "id: string,",
        'cabin?: "economy" | "business",',
        "}) => any;",
        "",
        "} // namespace functions",
      ].join("\n"),
    );
    const texts: string[] = [];
    const spy = createTokenCounter({
      countText: (t) => {
        texts.push(t);
        return t.length;
      },
    });
    expect(spy.countTools([lookup])).toBe(renderToolDefinitions([lookup]).length + TOOLS_OVERHEAD_TOKENS);
    expect(spy.countTools([])).toBe(0);
    expect(counter.countTools([lookup])).toBe(counter.countText(renderToolDefinitions([lookup])) + TOOLS_OVERHEAD_TOKENS);
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
    // Same id, other text: recounted.
    expect(counter.countMessage(new HumanMessage({ id: "m1", content: "hello there" }))).toBe(11 + MESSAGE_OVERHEAD_TOKENS);
    // The key is what is counted, not the id: an equal message without id or with another id is a hit.
    counter.countMessage(new HumanMessage("hello"));
    counter.countMessage(new HumanMessage({ id: "other", content: "hello" }));
    expect(texts).toEqual(["hello", "hello there"]);
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

describe("messageText: text blocks read for analysis", () => {
  const blocks = (...texts: string[]) => new HumanMessage({ content: texts.map((text) => ({ type: "text", text })) });

  it("keeps the words of two blocks apart (was 'KimI live in Seoul'), in English and Korean", () => {
    expect(messageText(blocks("Kim", "I live in Seoul"))).toBe(`Kim${TEXT_BLOCK_SEPARATOR}I live in Seoul`);
    expect(messageText(blocks("김민수", "서울에 살아요"))).toBe(`김민수${TEXT_BLOCK_SEPARATOR}서울에 살아요`);
    // Blocks that already meet at white space, empty blocks and plain strings add no separator.
    expect(messageText(blocks("Kim ", "I live"))).toBe("Kim I live");
    expect(messageText(blocks("Kim", "", "\nI live"))).toBe("Kim\nI live");
    expect(messageText(new HumanMessage("Kim I live"))).toBe("Kim I live");
    // What is sent is unchanged: the blocks themselves, and contentText as LangChain's .text.
    expect(contentText(blocks("Kim", "I live").content)).toBe("KimI live");
  });

  it("separated blocks are tokenized as words: 'Kim' and 'I' are terms of their own", () => {
    const terms = tokenize(messageText(blocks("Kim", "I live in Seoul")));
    expect(terms).toContain("kim");
    expect(terms).not.toContain("kimi");
    expect(tokenize(messageText(blocks("민수", "부산으로 이사했어요")))).toContain("민수");
  });
});

describe("regressions of issue 12", () => {
  const counter = createTokenCounter({ encoding: "o200k_base" });
  const o200k = getEncoding("o200k_base");

  it("one counter serving two threads counts tool-call arguments of a same-id, same-length message", () => {
    const call = (args: Record<string, unknown>) =>
      new AIMessage({ id: "msg-2", content: "Booking now.", tool_calls: [{ id: "call_1", name: "book", args, type: "tool_call" }] });
    const small = counter.countMessage(call({ note: "x" }));
    const big = counter.countMessage(call({ note: "x".repeat(6000), passengers: Array.from({ length: 50 }, (_, i) => `p${i}`) }));
    expect(small).toBeLessThan(40);
    expect(big).toBeGreaterThan(small + 700);
  });

  it("counts an Anthropic AI message's tool call once (tool_use block and tool_calls are the same call)", () => {
    const args = { city: "Tampere", days: 3 };
    const openai = new AIMessage({ content: "Checking.", tool_calls: [{ id: "toolu_1", name: "forecast", args, type: "tool_call" }] });
    const anthropic = new AIMessage({
      content: [
        { type: "text", text: "Checking." },
        { type: "tool_use", id: "toolu_1", name: "forecast", input: args },
      ],
      tool_calls: [{ id: "toolu_1", name: "forecast", args, type: "tool_call" }],
    });
    expect(counter.countMessage(anthropic)).toBe(counter.countMessage(openai));
    // A tool_use block without a matching tool_calls entry is still sent, and counted.
    const blockOnly = new AIMessage({ content: [{ type: "tool_use", id: "toolu_2", name: "forecast", input: args }] });
    expect(counter.countMessage(blockOnly)).toBe(
      MESSAGE_OVERHEAD_TOKENS + counter.countText("forecast") + counter.countText(JSON.stringify(args)) + TOOL_CALL_OVERHEAD_TOKENS,
    );
  });

  it("counts a user message's tool_result block (Anthropic's native format) as its id and content, as a ToolMessage's result is counted", () => {
    for (const text of ["sunny, 21C and a light breeze from the west", "맑음, 21도, 서쪽에서 약한 바람"]) {
      const asString = new HumanMessage({ content: [{ type: "tool_result", tool_use_id: "toolu_1", content: text }] as never });
      const asBlocks = new HumanMessage({
        content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text }] }] as never,
      });
      const expected = MESSAGE_OVERHEAD_TOKENS + TOOL_CALL_OVERHEAD_TOKENS + counter.countText("toolu_1") + counter.countText(text);
      expect(counter.countMessage(asString)).toBe(expected);
      expect(counter.countMessage(asBlocks)).toBe(expected);
      // The result's text is counted, not the JSON framing around it.
      expect(counter.countMessage(asString)).toBeLessThan(counter.countText(JSON.stringify(asString.content)) + MESSAGE_OVERHEAD_TOKENS);
    }
    // A picture in a result is priced as a picture (unknown size: Anthropic's most), not left out as binary.
    const png = "iVBORw0KGgo".padEnd(4000, "A");
    const picture = new HumanMessage({
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_2",
          content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: png } }],
        },
      ] as never,
    });
    expect(counter.countMessage(picture)).toBe(
      MESSAGE_OVERHEAD_TOKENS + TOOL_CALL_OVERHEAD_TOKENS + counter.countText("toolu_2") + anthropicImageTokens(undefined),
    );
  });

  it("contentText joins text blocks with nothing between them, as LangChain's .text does (what is sent)", () => {
    const message = new AIMessage({
      content: [
        { type: "text", text: "Tam" },
        { type: "text", text: "pere" },
      ],
    });
    expect(contentText(message.content)).toBe(message.text);
    expect(contentText(message.content)).toBe("Tampere");
  });

  it("a changed facts block costs the tokens of its own lines only; the count stays exact", () => {
    const policy = Array.from(
      { length: 60 },
      (_, i) => `Rule ${i}: passengers may change flights in basic economy only within 24 hours.`,
    ).join("\n");
    const prompt = (facts: string[]) => `${policy}\n\n[Known facts about the user]\n${facts.map((f) => `- ${f}`).join("\n")}`;
    const fresh = createTokenCounter({ encoding: "o200k_base" });
    const first = prompt(["I live in Seoul.", "저는 간호사예요."]);
    expect(fresh.countText(first)).toBe(o200k.encode(first, "all").length);
    const before = fresh.encodedCharacters ?? 0;
    const second = prompt(["I live in Busan.", "저는 간호사예요."]);
    expect(fresh.countText(second)).toBe(o200k.encode(second, "all").length);
    const encodedAgain = (fresh.encodedCharacters ?? 0) - before;
    expect(encodedAgain).toBeLessThan(400);
    expect(second.length).toBeGreaterThan(4000);
  });
});

describe("issue 16: every text remembered by line", () => {
  const o200k = getEncoding("o200k_base");
  const prompt = "You are a warm, attentive companion who chats with the user about their life: family, work, hobbies, plans.";
  const note = "This conversation continues from earlier turns: take the previous messages into account when you answer.";
  const system = (facts: string) =>
    new SystemMessage({
      content: [
        { type: "text", text: prompt },
        { type: "text", text: `\n\n${note}` },
        { type: "text", text: `\n\n[Known facts about the user]\n${facts}` },
      ],
    });

  it("a new system message whose facts block changed tokenizes the new fact line only, and counts the same as a fresh counter", () => {
    const counter = createTokenCounter({ encoding: "o200k_base" });
    counter.countMessage(system("- User lives in Seoul\n- User works as a nurse"));
    const before = counter.encodedCharacters ?? 0;
    const facts = "- 사용자는 부산에 살아요\n- User lives in Seoul\n- User works as a nurse";
    const second = system(facts);
    const tokens = counter.countMessage(second);
    // Segments end after their newline, so the new line is counted with it; the others are known.
    expect((counter.encodedCharacters ?? 0) - before).toBe("- 사용자는 부산에 살아요\n".length);
    expect(tokens).toBe(createTokenCounter({ encoding: "o200k_base" }).countMessage(system(facts)));
    const exact = [prompt, `\n\n${note}`, `\n\n[Known facts about the user]\n${facts}`].reduce(
      (n, t) => n + o200k.encode(t, "all").length,
      0,
    );
    expect(tokens).toBe(exact + MESSAGE_OVERHEAD_TOKENS);
  });

  it("the same short text counted twice is tokenized once", () => {
    const counter = createTokenCounter({ encoding: "o200k_base" });
    expect(counter.countText(note)).toBe(o200k.encode(note, "all").length);
    const before = counter.encodedCharacters ?? 0;
    expect(counter.countText(note)).toBe(o200k.encode(note, "all").length);
    expect(counter.encodedCharacters).toBe(before);
  });
});

describe("counting long texts in line segments", () => {
  const pieces = [
    "\n",
    "\n\n",
    "\n/",
    "/",
    " ",
    "  ",
    "\t",
    ".",
    ",",
    "- ",
    "[Known facts]",
    "Seoul",
    "서울에 살아요",
    "12A",
    '{"a": 1}',
    "http://x.io/a",
    "é",
    "\r\n",
  ];
  const textArb = fc
    .array(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 12 })), { minLength: 40, maxLength: 200 })
    .map((p) => p.join(""));

  it.each(["o200k_base", "cl100k_base"] as const)("is exact: the segments of any text add up to its count (%s)", (encoding) => {
    const encoder = getEncoding(encoding);
    const counter = createTokenCounter({ encoding });
    fc.assert(
      fc.property(textArb, (text) => {
        expect(tokenSegments(text).join("")).toBe(text);
        expect(counter.countText(text)).toBe(encoder.encode(text, "all").length);
      }),
      { seed: 12, numRuns: 300 },
    );
  });
});

describe("upper bounds without the tokenizer (issue 21)", () => {
  const pieces = ["서울에 살아요", "😀", "a".repeat(100), "=".repeat(300), "é", "\n", " ", '{"seat":"12A"}', "word ", "漢字"];
  const textArb = fc
    .array(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 20 }), fc.string({ unit: "grapheme", maxLength: 8 })), {
      maxLength: 60,
    })
    .map((p) => p.join(""));

  it.each(["o200k_base", "cl100k_base"] as const)("boundText and boundMessage are never below the count (%s)", (encoding) => {
    const counter = createTokenCounter({ encoding });
    fc.assert(
      fc.property(textArb, textArb, (text, args) => {
        expect(counter.boundText?.(text)).toBeGreaterThanOrEqual(counter.countText(text));
        for (const message of [
          new HumanMessage({ id: "u", content: text }),
          new SystemMessage({ id: "s", content: text }),
          new AIMessage({ id: "a", content: text, tool_calls: [{ id: "c1", name: "book", args: { note: args }, type: "tool_call" }] }),
          new ToolMessage({ id: "t", tool_call_id: "c1", content: [{ type: "text", text }] }),
        ]) {
          // A fresh copy: the bound of a message never counted before reads no cache.
          expect(createTokenCounter({ encoding }).boundMessage?.(message)).toBeGreaterThanOrEqual(counter.countMessage(message));
        }
      }),
      { seed: 21, numRuns: 200 },
    );
  });

  it("tokenizes nothing for a text up to 2,048 characters; a longer one is counted (its long runs are estimated)", () => {
    const counter = createTokenCounter();
    expect(counter.boundText?.("서울에 살아요")).toBe(Buffer.byteLength("서울에 살아요"));
    expect(counter.encodedCharacters).toBe(0);
    const long = "x".repeat(5000);
    expect(counter.boundText?.(long)).toBe(counter.countText(long));
  });

  it("a counter with a custom countText has no bounds", () => {
    const counter = createTokenCounter({ countText: (text) => text.length });
    expect([counter.boundText, counter.boundMessage]).toEqual([undefined, undefined]);
  });
});

describe("createTokenCounter: a message changed in place", () => {
  // The oracle for the counter's memo is a fresh counter: a message whose content, blocks or tool
  // calls were changed in place (a user's middleware redacting text, say) is counted as it is now.
  const cases: Array<[string, () => HumanMessage | AIMessage, (message: HumanMessage | AIMessage) => void]> = [
    [
      "string content (en)",
      () => new HumanMessage("hi"),
      (m) => {
        m.content = "hi, here is a much longer message than before";
      },
    ],
    [
      "string content (ko)",
      () => new HumanMessage("안녕"),
      (m) => {
        m.content = "안녕하세요, 오늘은 지난주에 말한 사과 농장 이야기를 더 해볼게요";
      },
    ],
    [
      "a text block's text (ko)",
      () => new HumanMessage({ content: [{ type: "text", text: "짧게" }] }),
      (m) => {
        const [block] = m.content as Array<{ type: string; text: string }>;
        if (block) block.text = "이번에는 훨씬 긴 문장으로 바뀐 텍스트 블록입니다";
      },
    ],
    [
      "a tool call's arguments (en)",
      () => new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "search", args: { q: "x" } }] }),
      (m) => {
        const call = (m as AIMessage).tool_calls?.[0] as { args: Record<string, unknown> };
        call.args.q = "a far longer query about the weather in Seoul next week";
      },
    ],
  ];
  it.each(cases)("%s: countMessage and boundMessage equal a fresh counter's", (_name, make, change) => {
    const counter = createTokenCounter();
    const message = make();
    const before = counter.countMessage(message);
    counter.boundMessage?.(message);
    change(message);
    const fresh = createTokenCounter();
    expect(counter.countMessage(message)).toBe(fresh.countMessage(message));
    expect(counter.countMessage(message)).not.toBe(before);
    expect(counter.boundMessage?.(message)).toBe(fresh.boundMessage?.(message));
  });
});
