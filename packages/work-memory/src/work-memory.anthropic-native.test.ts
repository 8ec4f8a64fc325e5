/**
 * workMemory on threads in Anthropic's native format: calls as `{ type: "tool_use" }` blocks of an
 * AI message (`tool_calls` empty), results as `{ type: "tool_result" }` blocks of a user message
 * (no ToolMessage), as imported transcripts, older `@langchain/anthropic` answers and client-side
 * tools send them. Each `tool_result` block is one tool result of the run, projected and decided
 * on as the same result in a ToolMessage is; a user message of results and words of its own is the
 * user's turn.
 */
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { readSummarySlot } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { workMemory } from "./work-memory.js";

const base64 = Buffer.from("chart-bytes".repeat(20)).toString("base64");
const chart = { type: "image", source: { type: "base64", media_type: "image/png", data: base64 } };
const toolUse = (id: string, input: object) => ({ type: "tool_use", id, name: "render_chart", input });
const toolResult = (id: string, content: unknown) => ({ type: "tool_result", tool_use_id: id, content });

const WORDS = {
  en: {
    ask: "Chart the weather in Seoul.",
    look: "Let me draw it.",
    text: "Seoul chart, 7 days",
    more: "Thanks. Now Busan.",
    answer: "Here is the Seoul chart.",
  },
  ko: {
    ask: "서울 날씨를 차트로 그려줘.",
    look: "그려 볼게요.",
    text: "서울 차트, 7일",
    more: "고마워. 이제 부산도.",
    answer: "서울 날씨 차트입니다.",
  },
};

/** A condenser that records every projection it is given and answers with a fixed note. */
function condenser() {
  const seen: string[] = [];
  const model = scriptedModel((messages) => {
    seen.push(String((messages.at(-1) as BaseMessage).content));
    return "note";
  });
  return { model, seen };
}

/** One run of an agent with workMemory over `input`; what the condenser saw and the slot's entries. */
async function runOn(input: BaseMessage[], answer: string | AIMessage) {
  const memory = condenser();
  const log: string[] = [];
  const agent = createAgent({
    model: scriptedModel(() => answer),
    checkpointer: new MemorySaver(),
    middleware: [workMemory({ model: memory.model, logger: { info: (m: string) => log.push(m), warn: (m: string) => log.push(m) } })],
  });
  const thread = { configurable: { thread_id: "wm-native" } };
  await agent.invoke({ messages: input }, thread);
  const entries = readSummarySlot((await agent.graph.getState(thread)).values).workMemory?.entries ?? [];
  return { seen: memory.seen, log, entries: entries.map((e) => e.text) };
}

describe.each(["en", "ko"] as const)("workMemory with Anthropic-native tool results (%s)", (lang) => {
  const w = WORDS[lang];

  it("projects a tool_result block's files as the same result in a ToolMessage's artifact, named by its tool_use block", async () => {
    const native = await runOn(
      [
        new HumanMessage(w.ask),
        new AIMessage({ content: [{ type: "text", text: w.look }, toolUse("toolu_1", { city: "Seoul" })] as never, tool_calls: [] }),
        new HumanMessage({ content: [toolResult("toolu_1", [{ type: "text", text: w.text }, chart])] as never }),
      ],
      w.answer,
    );
    const asToolMessage = await runOn(
      [
        new HumanMessage(w.ask),
        new AIMessage({ content: w.look, tool_calls: [{ id: "toolu_1", name: "render_chart", args: { city: "Seoul" } }] }),
        new ToolMessage({ tool_call_id: "toolu_1", name: "render_chart", content: w.text, artifact: [chart] }),
      ],
      w.answer,
    );
    expect(native.seen).toHaveLength(1);
    expect(native.seen[0]).toContain(`Response text:\n${w.answer}`);
    expect(native.seen[0]).toContain(
      '- render_chart: [{"type":"image","source":{"type":"base64","media_type":"image/png","data":"[inline data omitted',
    );
    expect(native.seen[0]).not.toContain(base64.slice(0, 40));
    // The result's text is not projected, from either format: the answer states it.
    expect(native.seen[0]).not.toContain(w.text);
    expect(native.seen).toEqual(asToolMessage.seen);
    expect(native.entries).toEqual(["note"]);
  });

  it("counts the results of a user message with words of its own, which starts the user's turn", async () => {
    // A ToolMessage result of the previous turn, then the user's words beside the native result of the turn's call.
    const earlier = [
      new HumanMessage(w.ask),
      new AIMessage({ content: "", tool_calls: [{ id: "c0", name: "lookup", args: {} }] }),
      new ToolMessage({ tool_call_id: "c0", name: "lookup", content: "ok", artifact: { file: "earlier.csv" } }),
      new AIMessage({ content: [toolUse("toolu_2", { city: "Seoul" })] as never, tool_calls: [] }),
    ];
    const mixed = await runOn(
      [...earlier, new HumanMessage({ content: [toolResult("toolu_2", [chart]), { type: "text", text: w.more }] as never })],
      w.answer,
    );
    expect(mixed.seen[0]).toContain("- render_chart: ");
    expect(mixed.seen[0]).not.toContain("earlier.csv");
    // A user message of only the result is the turn's tool loop: the turn started at the question.
    const carrier = await runOn([...earlier, new HumanMessage({ content: [toolResult("toolu_2", [chart])] as never })], w.answer);
    expect(carrier.seen[0]).toContain("- render_chart: ");
    expect(carrier.seen[0]).toContain('- lookup: {"file":"earlier.csv"}');
  });

  it("does not store an answer that ends on a tool_use call, as it does not one with tool_calls", async () => {
    const calling = new AIMessage({
      content: [{ type: "text", text: w.look }, toolUse("toolu_3", { city: "Seoul" })] as never,
      tool_calls: [],
    });
    const r = await runOn([new HumanMessage(w.ask)], calling);
    expect(r.log).toContain("work_memory: skipped reason=not_final");
    expect(r.seen).toEqual([]);
    expect(r.entries).toEqual([]);
  });
});
