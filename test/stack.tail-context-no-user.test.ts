/**
 * The stable_tail context on a view with no user message that ends on tool results (stack.edits.slow
 * seed 528 case 17: a thread re-imported as a tool loop with no user turn, its older groups
 * summarized). The context goes on the newest user message; with none, it was sent as a user
 * message of its own after the tool results, which Bedrock Converse refuses (tool results are a
 * user turn there: two user turns in a row) and, the view then opening on an AI message, Anthropic,
 * Gemini and Bedrock too (`first_message_role`). It now opens the view instead: one user turn
 * before the AI message, every provider's rules met. English and Korean; SQLite and in-memory.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import { messageText, STABLE_TAIL_HEADER } from "@threadwise/core";
import { PROVIDERS, validateProviderRequest } from "@threadwise/core/testing";
import { afterAll, describe, expect, it } from "vitest";
import { lookup, parallelModel, requests, stackAgent, summarizerModel } from "./support/report-agent.js";

const dir = mkdtempSync(join(tmpdir(), "tw-tail-context-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RESULT = { en: (i: number) => `Row ${i}: seat ${i}A is free.`, ko: (i: number) => `${i}열: ${i}A 좌석 비어 있음.` } as const;

/** A tool loop of `steps` calls with no user message: each AI message calls `lookup`, each result answers it. */
function toolLoop(lang: keyof typeof RESULT, steps: number): BaseMessage[] {
  return Array.from({ length: steps }, (_, i) => [
    new AIMessage({ id: `a${i}`, content: "", tool_calls: [{ id: `call_${i}`, name: "lookup", args: { n: i }, type: "tool_call" }] }),
    new ToolMessage({ id: `t${i}`, content: RESULT[lang](i), tool_call_id: `call_${i}`, name: "lookup" }),
  ]).flat();
}

describe.each(["en", "ko"] as const)("stable_tail context, no user message, view ending on tool results (%s)", (lang) => {
  for (const backend of ["in_memory", "sqlite"] as const)
    it(`${backend}: the context opens the view as one user turn; every provider accepts the request`, async () => {
      const model = parallelModel(false);
      const summarizer = summarizerModel((call) => `요약 summary ${call + 1}`);
      const { agent } = stackAgent({
        backend,
        sqlitePath: join(dir, `${lang}.sqlite`),
        model,
        tools: [lookup],
        promptContextMode: "stable_tail",
        windowSize: 4,
        summarizeThreshold: 6,
        summarizer: summarizer.model,
      });
      const cfg = { configurable: { thread_id: `loop-${lang}-${backend}` } };
      await agent.updateState(cfg, { messages: toolLoop(lang, 8) }, "tools");
      await agent.invoke(null, cfg);
      const sent = requests(model);
      expect(sent.length).toBeGreaterThan(0);
      for (const request of sent) {
        expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
        const tail = request.filter((m) => messageText(m).startsWith(STABLE_TAIL_HEADER));
        expect(tail).toHaveLength(1);
        expect(request[1]).toBe(tail[0]);
      }
      expect(messageText(sent[0]?.[1] as BaseMessage)).toContain("요약 summary");
    });
});
