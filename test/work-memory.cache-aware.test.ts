/**
 * `cache_aware` with workMemory on keeps the cached prefix (spec R36). The work memory gains a note
 * after each stored answer and, once full, loses its oldest one: a newuser33 measurement on a
 * recording server found the system prompt changed between 15 of 17 requests under `cache_aware`,
 * as under `legacy_system`. The system prompt may change only when the summary does; every note of
 * the envelope reaches the model exactly once, in each mode; `legacy_system` and `stable_tail` are
 * as they were.
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { messageText, readSummarySlot, STABLE_TAIL_HEADER, systemText } from "@threadwise/core";
import { PROVIDERS, scriptedModel, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { DEFAULT_HISTORY_NOTE } from "@threadwise/history-aware";
import { SUMMARY_BLOCK_LABEL } from "@threadwise/summarize";
import { WORK_MEMORY_LABEL } from "@threadwise/work-memory";
import { describe, expect, it } from "vitest";
import { requests, stackAgent, summarizerModel } from "./support/report-agent.js";

type Mode = "legacy_system" | "stable_tail" | "cache_aware";

const TURNS = {
  en: [
    "book seat 12A",
    "PARALLEL 2 check two fares",
    "book a hotel in Busan",
    "PARALLEL 1 check the train",
    "book a taxi",
    "cancel the taxi",
    "PARALLEL 3 compare three hotels",
    "book the cheapest one",
  ],
  ko: [
    "12A 좌석 예약해 줘",
    "PARALLEL 2 요금 두 개 확인해 줘",
    "부산 호텔 예약해 줘",
    "PARALLEL 1 기차 확인해 줘",
    "택시 예약해 줘",
    "택시 취소해 줘",
    "PARALLEL 3 호텔 세 곳 비교해 줘",
    "제일 싼 곳으로 예약해 줘",
  ],
};

/**
 * The agent's model: `PARALLEL <k>` gets k parallel `lookup` calls, tool results get "done with
 * <results>", anything else "ok: <text>". It answers from the user's own words (the first text
 * block), so no note echoes a tail block back into the thread.
 */
function agentModel() {
  return strictModel({
    answer: (messages) => {
      const last = messages.at(-1) as BaseMessage;
      if (last.getType() === "tool")
        return `done with ${messages
          .filter((m) => m.getType() === "tool")
          .map((m) => messageText(m))
          .join(", ")}`;
      const text = messageText(last).split("\n\n")[0] as string;
      const parallel = /^PARALLEL (\d+)/.exec(text);
      if (!parallel) return `ok: ${text}`;
      const calls = Array.from({ length: Number(parallel[1]) }, (_, i) => ({
        id: `call_${messages.length}_${i}`,
        name: "lookup",
        args: { n: i },
        type: "tool_call" as const,
      }));
      return new AIMessage({ content: "", tool_calls: calls });
    },
  });
}

/** The summary block's text in a system prompt (`""` without one). */
function summaryIn(system: string): string {
  const at = system.indexOf(`[${SUMMARY_BLOCK_LABEL}]`);
  if (at === -1) return "";
  const end = system.indexOf("\n\n[", at + 1);
  return system.slice(at, end === -1 ? undefined : end);
}

async function run(mode: Mode, lang: keyof typeof TURNS) {
  let notes = 0;
  const condenser = scriptedModel((messages: BaseMessage[]) => {
    notes += 1;
    return `note ${notes} (${lang}): ${(messageText(messages.at(-1) as BaseMessage).split("\n")[1] ?? "").slice(0, 40)}`;
  });
  const summarizer = summarizerModel((call) => `SUMMARY-${call + 1} (${lang})`);
  const { agent, model } = stackAgent({
    model: agentModel(),
    promptContextMode: mode,
    windowSize: 6,
    summarizeThreshold: 10,
    summarizer: summarizer.model,
    stack: { workMemory: true, models: { summarize: summarizer.model as never, workMemory: condenser as never } },
  });
  const config = { configurable: { thread_id: `wm-cache-${mode}-${lang}` } };
  // What each request's envelope was: the slot before the turn (the envelope commits after the run).
  const envelopes: string[][] = [];
  for (const text of TURNS[lang]) {
    const slot = readSummarySlot((await agent.graph.getState(config)).values);
    const before = (slot.workMemory?.entries ?? []).map((e) => e.text);
    const calls = model.calls.length;
    await agent.invoke({ messages: [new HumanMessage(text)] }, config);
    for (let i = calls; i < model.calls.length; i += 1) envelopes.push(before);
  }
  expect(model.providerLog.rejections).toBe(0);
  return { sent: requests(model), envelopes, summaries: summarizer.inputs.length };
}

describe("workMemory under cache_aware keeps the cached prefix (spec R36)", () => {
  for (const lang of ["en", "ko"] as const) {
    it(`${lang}: the system prompt changes only with the summary; every note reaches the model once, in every mode`, async () => {
      const byMode = new Map<Mode, Awaited<ReturnType<typeof run>>>();
      for (const mode of ["legacy_system", "stable_tail", "cache_aware"] as const) {
        const result = await run(mode, lang);
        byMode.set(mode, result);
        result.sent.forEach((request, i) => {
          expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
          const all = request.map((m) => messageText(m)).join("\n");
          // Each note of the envelope the request was built from, exactly once; no other note.
          for (const note of result.envelopes[i] as string[]) expect(all.split(note).length - 1).toBe(1);
          expect(all.match(/note \d+ \(/g)?.length ?? 0).toBe((result.envelopes[i] as string[]).length);
        });
      }
      const aware = byMode.get("cache_aware") as Awaited<ReturnType<typeof run>>;
      // Not vacuous: tool calls, a full envelope rolling over, and a summary that changed.
      expect(aware.sent.length).toBeGreaterThan(TURNS[lang].length);
      expect(Math.max(...aware.envelopes.map((e) => e.length))).toBe(3);
      expect(aware.summaries).toBeGreaterThan(0);
      const systems = aware.sent.map((request) => systemText(request[0] as never));
      let changes = 0;
      for (let i = 1; i < systems.length; i += 1) {
        if (systems[i] === systems[i - 1]) continue;
        // historyAware's note, once, from the thread's second request on (as in stable_tail).
        if (i === 1 && systems[i] === `${systems[0]}\n\n${DEFAULT_HISTORY_NOTE}`) continue;
        changes += 1;
        // A change of the prefix is a new summary, never a new note.
        expect(summaryIn(systems[i] as string)).not.toBe(summaryIn(systems[i - 1] as string));
      }
      expect(changes).toBeGreaterThan(0);
      expect(changes).toBeLessThanOrEqual(aware.summaries);
      for (const system of systems) expect(system).not.toContain(`[${WORK_MEMORY_LABEL}]`);
      // The notes ride in the tail block of the newest user message, after the header.
      const last = aware.sent.at(-1) as BaseMessage[];
      const user = [...last].reverse().find((m) => m.getType() === "human") as BaseMessage;
      expect(messageText(user)).toContain(`${STABLE_TAIL_HEADER}\n\n`);
      expect(messageText(user)).toContain(`[${WORK_MEMORY_LABEL}]\n- ${(aware.envelopes.at(-1) as string[])[0]}`);
      // legacy_system keeps the envelope in the system prompt, stable_tail never there: as before.
      const legacy = byMode.get("legacy_system") as Awaited<ReturnType<typeof run>>;
      expect(systemText(legacy.sent.at(-1)?.[0] as never)).toContain(`[${WORK_MEMORY_LABEL}]\n- `);
      const tail = byMode.get("stable_tail") as Awaited<ReturnType<typeof run>>;
      const tailSystems = new Set(tail.sent.slice(1).map((request) => systemText(request[0] as never)));
      expect([...tailSystems]).toEqual([`${systemText(tail.sent[0]?.[0] as never)}\n\n${DEFAULT_HISTORY_NOTE}`]);
    });
  }
});
