import { AIMessage, HumanMessage, RemoveMessage, ToolMessage } from "@langchain/core/messages";
import { createTokenCounter, MESSAGE_OVERHEAD_TOKENS, messageText, type TokenCounter } from "@threadwise/core";
import { isCharacterHead } from "@threadwise/core/testing";
import { describe, expect, it } from "vitest";
import {
  boundedTokenCount,
  buildSummarizerInput,
  DEFAULT_SUMMARY_PROMPT,
  EMPTY_MESSAGE_NOTE,
  isContentNote,
  shortenToTokens,
  summarizerPassLines,
  transcriptLine,
} from "./summarizer-input.js";

const counter = createTokenCounter();

describe("transcriptLine", () => {
  it("renders users, assistants, tool calls and tool results", () => {
    expect(transcriptLine(new HumanMessage("hi"))).toBe("User: hi");
    expect(transcriptLine(new AIMessage("hello"))).toBe("Assistant: hello");
    const call = new AIMessage({ content: "", tool_calls: [{ id: "t", name: "lookup", args: { q: 1 }, type: "tool_call" }] });
    expect(transcriptLine(call)).toBe('Assistant called lookup({"q":1})');
    expect(transcriptLine(new ToolMessage({ content: "42", tool_call_id: "t", name: "lookup" }))).toBe("Tool lookup: 42");
  });
});

describe("transcriptLine: messages without text", () => {
  it("writes a note of what an empty, blank or text-less message holds, never a bare prefix (the summarizer read `User: `)", () => {
    const image = { type: "image_url", image_url: { url: "https://example.com/cat.png" } };
    expect(transcriptLine(new HumanMessage(""))).toBe(`User: ${EMPTY_MESSAGE_NOTE}`);
    expect(transcriptLine(new HumanMessage("  \n "))).toBe("User: (empty)");
    expect(transcriptLine(new HumanMessage({ content: [{ type: "text", text: " " }] }))).toBe("User: (empty)");
    expect(transcriptLine(new HumanMessage({ content: [] }))).toBe("User: (empty)");
    expect(transcriptLine(new HumanMessage({ content: [{ type: "text", text: "" }, image] }))).toBe("User: (image)");
    expect(
      transcriptLine(
        new HumanMessage({ content: [image, { type: "file", url: "https://example.com/a.pdf", mimeType: "application/pdf" }, image] }),
      ),
    ).toBe("User: (image, file)");
    expect(transcriptLine(new HumanMessage({ content: [{ type: "text", text: "고양이 사진이야" }, image] }))).toBe("User: 고양이 사진이야");
    expect(transcriptLine(new AIMessage(""))).toBe("Assistant: (empty)");
    expect(transcriptLine(new AIMessage({ content: [{ type: "reasoning", reasoning: "think" }] }))).toBe("Assistant: (reasoning)");
    expect(transcriptLine(new ToolMessage({ content: "", tool_call_id: "t", name: "lookup" }))).toBe("Tool lookup: (empty)");
    expect(transcriptLine(new ToolMessage({ content: [{ type: "mystery" }], tool_call_id: "t", name: "lookup" }))).toBe(
      "Tool lookup: (other content)",
    );
    // Calls are the content of a tool-calling AI message: no note beside them, and its tool_use blocks are the calls.
    const call = new AIMessage({
      content: [
        { type: "text", text: "" },
        { type: "tool_use", id: "t", name: "lookup", input: { q: 1 } },
      ],
      tool_calls: [{ id: "t", name: "lookup", args: { q: 1 }, type: "tool_call" }],
    });
    expect(transcriptLine(call)).toBe('Assistant called lookup({"q":1})');
  });

  it("reads Anthropic's native format: tool_use blocks without tool_calls are calls, tool_result blocks of a user message are results", () => {
    const call = new AIMessage({
      content: [
        { type: "text", text: "확인해 볼게요." },
        { type: "tool_use", id: "toolu_1", name: "weather", input: { city: "서울" } },
      ],
      tool_calls: [],
    });
    expect(transcriptLine(call)).toBe('Assistant: 확인해 볼게요.\nAssistant called weather({"city":"서울"})');
    const result = new HumanMessage({ content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "맑음, 21도" }] });
    expect(transcriptLine(result)).toBe("Tool result: 맑음, 21도");
    const withWords = new HumanMessage({
      content: [
        { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "sunny" }] },
        { type: "text", text: "Thanks. Umbrella tomorrow?" },
      ],
    });
    expect(transcriptLine(withWords)).toBe("Tool result: sunny\nUser: Thanks. Umbrella tomorrow?");
  });

  it("isContentNote tells the notes from a user who wrote words in parentheses", () => {
    for (const note of ["(empty)", "(image)", "(image, file)", "(reasoning)", "(other content)"]) expect(isContentNote(note)).toBe(true);
    for (const said of ["(yes)", "(image of a cat)", "(빈 메시지)", "empty", "(image,file)"]) expect(isContentNote(said)).toBe(false);
  });
});

describe("transcriptLine: a RemoveMessage stored as a message (langgraph#8423)", () => {
  // LangGraph's reducer keeps a removal written after REMOVE_ALL_MESSAGES in the thread as a
  // message; it is no turn of the conversation (core groups it as an orphan that is never sent),
  // so the summarizer must not read it as an empty assistant turn.
  for (const [lang, said, answered] of [
    ["en", "I fly to Busan on Friday.", "Noted: Busan, Friday."],
    ["ko", "금요일에 부산으로 가요.", "부산, 금요일로 기억할게요."],
  ] as const) {
    it(`leaves the removal out of the transcript, no line and no token (${lang})`, () => {
      const removal = new RemoveMessage({ id: "gone-1" });
      expect(transcriptLine(removal)).toBe("");
      const span = [new HumanMessage(said), removal, new AIMessage(answered)];
      const input = buildSummarizerInput({
        previousSummary: undefined,
        span,
        prompt: DEFAULT_SUMMARY_PROMPT,
        maxInputTokens: 4000,
        counter,
      });
      const user = messageText(input.messages[1] as HumanMessage);
      expect(user).toBe(`<new_messages>\nUser: ${said}\nAssistant: ${answered}\n</new_messages>`);
      const passes = summarizerPassLines({ span, prompt: DEFAULT_SUMMARY_PROMPT, maxInputTokens: 4000, counter });
      expect(passes.map((p) => p.messages.length)).toEqual([3]);
      expect(passes[0]?.lineTokens[1]).toBe(0);
      // Read from the passes' lines, the input is the same.
      const read = buildSummarizerInput({
        previousSummary: undefined,
        span,
        prompt: DEFAULT_SUMMARY_PROMPT,
        maxInputTokens: 4000,
        counter,
        read: passes[0],
      });
      expect(messageText(read.messages[1] as HumanMessage)).toBe(user);
      expect(read.tokens).toBe(input.tokens);
    });
  }
});

describe("buildSummarizerInput", () => {
  it("sends exactly the previous summary and the new span", () => {
    const input = buildSummarizerInput({
      previousSummary: "The user is Mina from Busan.",
      span: [new HumanMessage("I adopted a cat."), new AIMessage("Lovely! What is its name?")],
      prompt: DEFAULT_SUMMARY_PROMPT,
      maxInputTokens: 8000,
      counter,
    });
    expect(input.messages).toHaveLength(2);
    expect(messageText(input.messages[0]!)).toBe(DEFAULT_SUMMARY_PROMPT);
    expect(messageText(input.messages[1]!)).toBe(
      "<previous_summary>\nThe user is Mina from Busan.\n</previous_summary>\n\n<new_messages>\nUser: I adopted a cat.\nAssistant: Lovely! What is its name?\n</new_messages>",
    );
    expect(input.shortened).toBe(0);
  });

  it("tokenizes each transcript line once, and counts the input exactly (issue 16, English and Korean)", () => {
    const span = Array.from({ length: 20 }, (_, i) =>
      i % 2 === 0
        ? new HumanMessage(`I moved to Busan last month and started a new job, day ${i}.`)
        : new AIMessage(`부산 생활은 어때요? 새 직장은 마음에 드세요? (${i})`),
    );
    const fresh = createTokenCounter({ encoding: "o200k_base" });
    const input = buildSummarizerInput({
      previousSummary: "The user is Mina.",
      span,
      prompt: DEFAULT_SUMMARY_PROMPT,
      maxInputTokens: 8000,
      counter: fresh,
    });
    const user = messageText(input.messages[1]!);
    // Once: the prompt, the frame, and every line; the whole transcript is not tokenized again.
    expect(fresh.encodedCharacters).toBeLessThan(DEFAULT_SUMMARY_PROMPT.length + user.length + 64);
    const exact = createTokenCounter({ encoding: "o200k_base" });
    expect(input.tokens).toBe(exact.countText(DEFAULT_SUMMARY_PROMPT) + exact.countText(user) + 2 * MESSAGE_OVERHEAD_TOKENS);
  });

  it("omits the previous-summary section on the first summary", () => {
    const input = buildSummarizerInput({
      previousSummary: undefined,
      span: [new HumanMessage("a")],
      prompt: "p",
      maxInputTokens: 1000,
      counter,
    });
    expect(messageText(input.messages[1]!)).toBe("<new_messages>\nUser: a\n</new_messages>");
  });

  it("shortens a 30,000-character line without newlines with a marker, keeps the previous summary, stays in bounds, fast", () => {
    const huge = "x".repeat(30_000);
    const started = Date.now();
    const input = buildSummarizerInput({
      previousSummary: "PREVIOUS SUMMARY KEPT",
      span: [new HumanMessage("short one"), new HumanMessage(huge), new AIMessage("short two")],
      prompt: DEFAULT_SUMMARY_PROMPT,
      maxInputTokens: 1000,
      counter,
    });
    const text = messageText(input.messages[1]!);
    expect(text).toContain("<previous_summary>\nPREVIOUS SUMMARY KEPT\n</previous_summary>");
    expect(text).toContain("User: short one\n");
    expect(text).toContain("Assistant: short two\n");
    expect(text).toMatch(/\[\.\.\. \d+ characters left out: summarizer input limit\]/);
    expect(input.shortened).toBe(1);
    expect(input.tokens).toBeLessThanOrEqual(1000);
    expect(input.tokens).toBeGreaterThan(600); // the budget is used, not thrown away
    // Guard against js-tiktoken's quadratic time on one long word (30k chars took minutes).
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it("shortens Korean text on code points", () => {
    const korean = "안녕하세요 저는 서울에 살아요 ".repeat(400);
    const short = shortenToTokens(counter, korean, 50);
    expect(boundedTokenCount(counter, short)).toBeLessThanOrEqual(50);
    expect(short.startsWith("안녕하세요 저는")).toBe(true);
    expect(short).not.toContain("\uFFFD");
  });

  it("cuts a long word between characters: a decomposed Korean word or an emoji run is not split (was a code-point cut)", () => {
    for (const word of ["안녕하세요서울에살아요".normalize("NFD").repeat(40), "👨‍👩‍👧👋🏽".repeat(200)]) {
      const short = shortenToTokens(counter, word, 600);
      const head = short.slice(0, short.indexOf(" [..."));
      expect(head.length).toBeGreaterThan(0);
      expect(isCharacterHead(head, word), JSON.stringify(head.slice(-8))).toBe(true);
    }
  });

  it("leaves out whole lines with a marker when even a short cap per line does not fit", () => {
    const span = Array.from({ length: 200 }, (_, i) => new HumanMessage(`message number ${i} with a few more words in it`));
    const input = buildSummarizerInput({ previousSummary: "S", span, prompt: "p", maxInputTokens: 300, counter });
    const text = messageText(input.messages[1]!);
    expect(text).toMatch(/\[\.\.\. \d+ more messages left out: summarizer input limit\]/);
    expect(text).toContain("User: message number 0 ");
    expect(input.tokens).toBeLessThanOrEqual(300);
  });

  it("finds the long words the regular expression \\S{128,} finds: the same pieces, the same count (every white space of \\s)", () => {
    // The reference: boundedTokenCount as it was written with the regular expression.
    const reference = (c: TokenCounter, text: string): number => {
      let total = 0;
      let last = 0;
      for (const match of text.matchAll(/\S{128,}/g)) {
        const at = match.index ?? 0;
        if (at > last) total += c.countText(text.slice(last, at));
        const word = match[0];
        for (let i = 0; i < word.length; i += 64) total += c.countText(word.slice(i, i + 64));
        last = at + word.length;
      }
      if (last < text.length) total += c.countText(last === 0 ? text : text.slice(last));
      return total;
    };
    // A counter that records what it is handed, so the pieces are compared, not only their sum.
    const pieces = (count: (c: TokenCounter) => number): string[] => {
      const seen: string[] = [];
      const c = createTokenCounter({
        countText: (t) => {
          seen.push(t);
          return t.length;
        },
      });
      count(c);
      return seen;
    };
    const spaces = [
      " ",
      "\t",
      "\n",
      "\v",
      "\f",
      "\r",
      "\u00a0",
      "\u1680",
      "\u2000",
      "\u2005",
      "\u200a",
      "\u2028",
      "\u2029",
      "\u202f",
      "\u205f",
      "\u3000",
      "\ufeff",
    ];
    const letters = ["a", "한", "\u200b", "\u180e", "-", "😀", "\u0085", "\u00ad"];
    let seed = 20261204;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let round = 0; round < 300; round += 1) {
      let text = "";
      const words = 1 + next(8);
      for (let w = 0; w < words; w += 1) {
        const length = [0, 5, 63, 64, 127, 128, 129, 200, 300][next(9)] as number;
        for (let k = 0; k < length; k += 1) text += letters[next(letters.length)];
        text += spaces[next(spaces.length)];
        if (next(3) === 0) text = text.slice(0, -1);
      }
      expect(pieces((c) => boundedTokenCount(c, text))).toEqual(pieces((c) => reference(c, text)));
      expect(boundedTokenCount(counter, text)).toBe(reference(createTokenCounter(), text));
    }
  });

  it("remembers counts by the text itself: the same answer as a fresh counter, a custom countText called every time", () => {
    const texts = ["User: hello there\n", "Assistant: I went to Paris last week.\n", "User: hello there\n", "x".repeat(5000)];
    const fresh = (text: string) => boundedTokenCount(createTokenCounter(), text);
    for (const text of [...texts, ...texts]) expect(boundedTokenCount(counter, text)).toBe(fresh(text));
    let calls = 0;
    const custom = createTokenCounter({
      countText: (t) => {
        calls += 1;
        return t.length;
      },
    });
    boundedTokenCount(custom, "same text");
    boundedTokenCount(custom, "same text");
    expect(calls).toBe(2);
  });

  it("counts long unbroken text in bounded pieces, at or above the exact count", () => {
    const text = "The quick brown fox jumps over the lazy dog. ".repeat(40);
    expect(boundedTokenCount(counter, text)).toBeGreaterThanOrEqual(counter.countText(text));
    expect(boundedTokenCount(counter, text)).toBeLessThanOrEqual(counter.countText(text) + 10);
  });
});
