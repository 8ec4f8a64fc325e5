import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { countCharacters, loneSurrogateAt } from "@threadwise/core";
import { isCharacterHead } from "@threadwise/core/testing";
import { describe, expect, it } from "vitest";
import { MAX_PROJECTION_CHARACTERS, projectResponse, stripInlineData } from "./response-projection.js";
import { asksForInput, decideStore, type StoreCandidate } from "./store-decision.js";
import { toolResultsOf } from "./tool-results.js";

const candidate = (last: AIMessage | HumanMessage | undefined, extra: Partial<StoreCandidate> = {}): StoreCandidate => ({
  last,
  modelResponse: last,
  hasStructuredResponse: false,
  asksForInput,
  ...extra,
});

describe("asksForInput", () => {
  it.each([
    ["Which city should I book?", true],
    ["서울로 예약할까요?", true],
    ["どちらにしますか？", true],
    ['Shall I go ahead? "', true],
    ["**Confirm the date?**", true],
    ["Booked. Seat 12A.", false],
    ["Why? Because it was full.", false],
    ["", false],
    // Chat answers: emoji, laughter or an invisible character after the mark; decomposed Hangul.
    ["어떤 날짜가 좋으세요? 😊", true],
    ["Shall I book it? 👍🏻", true],
    ["Want the window seat? ❤️", true],
    ["어디로 갈까요? ㅎㅎ", true],
    ["서울로 예약할까요?\u200B", true],
    ["서울로 예약할까요?".normalize("NFD"), true],
    ["예약했어요 😊", false],
    ["예약 끝났어요 ㅎㅎ", false],
  ])("%j -> %s", (text, expected) => {
    expect(asksForInput(text)).toBe(expected);
  });
});

describe("decideStore", () => {
  it("stores a normal final answer", () => {
    expect(decideStore(candidate(new AIMessage("Booked seat 12A.")))).toEqual({ store: true });
  });

  it("gives the reason for each answer it does not store", () => {
    const ok = new AIMessage("Booked seat 12A.");
    expect(decideStore(candidate(ok, { modelResponse: undefined }))).toEqual({ store: false, reason: "no_model_response" });
    expect(decideStore(candidate(new HumanMessage("hi") as never))).toEqual({ store: false, reason: "not_final" });
    const calling = new AIMessage({ content: "", tool_calls: [{ id: "c", name: "t", args: {} }] });
    expect(decideStore(candidate(calling))).toEqual({ store: false, reason: "not_final" });
    expect(decideStore(candidate(new AIMessage("I can't help."), { modelResponse: ok }))).toEqual({ store: false, reason: "replaced" });
    expect(decideStore(candidate(new AIMessage({ content: "x", additional_kwargs: { refusal: "no" } })))).toEqual({
      store: false,
      reason: "blocked",
    });
    expect(decideStore(candidate(new AIMessage({ content: "x", response_metadata: { blocked: true } })))).toEqual({
      store: false,
      reason: "blocked",
    });
    expect(decideStore(candidate(ok, { isBlocked: () => true }))).toEqual({ store: false, reason: "blocked" });
    expect(decideStore(candidate(new AIMessage({ content: "x", response_metadata: { stop_reason: "max_tokens" } })))).toEqual({
      store: false,
      reason: "failed",
    });
    expect(decideStore(candidate(new AIMessage({ content: "x", response_metadata: { error: { message: "boom" } } })))).toEqual({
      store: false,
      reason: "failed",
    });
    expect(decideStore(candidate(new AIMessage("Model call failed after 3 attempts with Error: down")))).toEqual({
      store: false,
      reason: "failed",
    });
    expect(decideStore(candidate(new AIMessage("Which seat?")))).toEqual({ store: false, reason: "input_required" });
    expect(decideStore(candidate(new AIMessage("")))).toEqual({ store: false, reason: "empty" });
  });

  it("stores an answer with only structured output or only a file", () => {
    expect(decideStore(candidate(new AIMessage(""), { hasStructuredResponse: true }))).toEqual({ store: true });
    const file = new AIMessage({ content: [{ type: "file", mime_type: "application/pdf", filename: "a.pdf", data: "AAAA" }] as never });
    expect(decideStore(candidate(file))).toEqual({ store: true });
  });

  it("lets a custom input detector replace the question-mark rule", () => {
    const never = () => false;
    expect(decideStore(candidate(new AIMessage("Which seat?"), { asksForInput: never }))).toEqual({ store: true });
  });
});

describe("projectResponse", () => {
  const base64 = Buffer.from("binary".repeat(40)).toString("base64");

  it("keeps file and artifact metadata and drops inline bytes and base64", () => {
    const message = new AIMessage({
      content: [
        { type: "text", text: "Your report is ready." },
        { type: "file", mime_type: "application/pdf", filename: "report.pdf", data: base64 },
        { type: "image", source_type: "base64", mime_type: "image/png", data: base64 },
      ] as never,
    });
    const tool = new ToolMessage({
      content: "ok",
      tool_call_id: "c1",
      name: "render",
      artifact: {
        name: "chart.png",
        bytes: new Uint8Array(2048),
        url: "https://files.example/chart.png",
        preview: `data:image/png;base64,${base64}`,
      },
    });
    const text = projectResponse({
      message,
      structuredResponse: { total: 3, attachment: { filename: "x.csv", base64 } },
      toolResults: toolResultsOf([tool]),
    });
    expect(text).toContain("Response text:\nYour report is ready.");
    expect(text).toContain('"filename":"report.pdf"');
    expect(text).toContain('"mime_type":"image/png"');
    expect(text).toContain('"total":3');
    expect(text).toContain('"filename":"x.csv"');
    expect(text).toContain("render: ");
    expect(text).toContain("https://files.example/chart.png");
    expect(text).toContain("[inline data omitted: 2048 bytes]");
    expect(text).not.toContain(base64.slice(0, 30));
    expect(text).not.toContain("data:image");
  });

  it("leaves hex digests and short strings alone", () => {
    const digest = "a".repeat(64).replace(/a/g, (_, i) => "0123456789abcdef"[i % 16] as string);
    expect(stripInlineData({ sha256: digest, id: "abc" })).toEqual({ sha256: digest, id: "abc" });
  });

  it("is empty when there is nothing to condense", () => {
    expect(projectResponse({ message: new AIMessage("  ") })).toBe("");
  });

  it("is cut at MAX_PROJECTION_CHARACTERS without splitting an emoji (the condenser's request stays well-formed)", () => {
    // "Response text:\n" is 15 units, so an emoji (2 units) straddles the cut of 16,000.
    const text = projectResponse({ message: new AIMessage("😀".repeat(MAX_PROJECTION_CHARACTERS)) });
    expect(text.endsWith("\n[cut]")).toBe(true);
    expect(loneSurrogateAt(text)).toBe(-1);
    expect(text.length).toBeGreaterThan(MAX_PROJECTION_CHARACTERS - 2);
  });

  it("is cut between characters as a user counts them: no decomposed syllable or emoji sequence is split (was a code-point cut)", () => {
    for (const unit of ["서울".normalize("NFD"), "👨‍👩‍👧", "👋🏽", "🇰🇷"]) {
      const answer = unit.repeat(MAX_PROJECTION_CHARACTERS);
      const text = projectResponse({ message: new AIMessage(answer) });
      const head = text.slice(0, -"\n[cut]".length);
      expect(text.endsWith("\n[cut]"), unit).toBe(true);
      expect(isCharacterHead(head, `Response text:\n${answer}`), unit).toBe(true);
      expect(countCharacters(head), unit).toBe(MAX_PROJECTION_CHARACTERS);
    }
  });
});
