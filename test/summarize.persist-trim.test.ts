/**
 * summarize + persistTrim over many checkpointed turns: deletions never shift the summary's
 * coverage, every message is summarized exactly once, and the model always sees the summary plus
 * every message it does not cover (spec R5, R10-R12).
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { messageText, readSummarySlot } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { persistTrim } from "@threadwise/persist-trim";
import { summarize } from "@threadwise/summarize";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";

/** Conversation order: u1, a1, u2, a2, ... Position p (1-based) has this id. */
const idAt = (p: number) => (p % 2 === 1 ? `u${(p + 1) / 2}` : `a${p / 2}`);
const transcript = (p: number) => (p % 2 === 1 ? `User: ${idAt(p)}` : `Assistant: ${idAt(p)}`);

async function run(keepGroups: number | undefined, turns: number) {
  const model = scriptedModel((messages) => {
    const user = [...messages].reverse().find((m) => m.getType() === "human" && String(m.id).startsWith("u"));
    const k = String(user?.id).slice(1);
    return new AIMessage({ id: `a${k}`, content: `a${k}` });
  });
  const summarizer = scriptedModel((_m, call) => `S${call + 1}`);
  const middleware = [summarize({ model: summarizer, windowSize: 4, threshold: 8, logger: false })];
  const agent = createAgent({
    model,
    checkpointer: new MemorySaver(),
    middleware: keepGroups ? [...middleware, persistTrim({ keepGroups, logger: false })] : middleware,
  });
  const config = { configurable: { thread_id: "long" } };
  const summaryTurns: number[] = [];
  let boundaryDeleted = 0;
  const checks: Array<() => void> = [];
  for (let k = 1; k <= turns; k += 1) {
    const before = summarizer.calls.length;
    await agent.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: `u${k}` })] }, config);
    if (summarizer.calls.length > before) summaryTurns.push(k);
    const state = await agent.graph.getState(config);
    const stored = state.values.messages as BaseMessage[];
    const summary = readSummarySlot(state.values).summary;
    const covered = summary?.coveredCount ?? 0;
    if (covered > 0 && !stored.some((m) => m.id === summary?.coveredThroughId)) boundaryDeleted += 1;
    const seen = (model.calls[k - 1]?.messages ?? []).filter((m) => m.getType() !== "system").map((m) => m.id);
    checks.push(() => {
      // Whatever was deleted is covered by the summary.
      expect(2 * k - stored.length).toBeLessThanOrEqual(covered);
      // The boundary is the message at position coveredCount, found by id (or already deleted).
      if (covered > 0) expect(summary?.coveredThroughId).toBe(idAt(covered));
      else expect(summary?.coveredThroughId ?? null).toBeNull();
      // Stored messages after the boundary are exactly positions coveredCount+1 .. 2k.
      const after = stored.slice(stored.findIndex((m) => m.id === summary?.coveredThroughId) + 1).map((m) => m.id);
      expect(after.slice(-(2 * k - covered))).toEqual(Array.from({ length: 2 * k - covered }, (_, i) => idAt(covered + i + 1)));
      // The model saw every message after what the summary then covered, in order, ending with u_k.
      expect(seen.at(-1)).toBe(`u${k}`);
      const firstSeen = Number.parseInt(String(seen[0]).slice(1), 10);
      expect(seen).toEqual(
        Array.from({ length: seen.length }, (_, i) => idAt((String(seen[0]).startsWith("u") ? 2 * firstSeen - 1 : 2 * firstSeen) + i)),
      );
    });
  }
  for (const check of checks) check();
  const state = await agent.graph.getState(config);
  return { summaryTurns, summarizer, state, model, boundaryDeleted };
}

describe("summarize with persistTrim over many turns", () => {
  it.each([8, 2])(
    "keepGroups %i: keeps coverage right while old messages are deleted, summarizes every message once",
    async (keepGroups) => {
      const trimmed = await run(keepGroups, 40);
      const plain = await run(undefined, 40);
      // keepGroups 2 deletes right up to the boundary message itself, so it is often gone.
      if (keepGroups === 2) expect(trimmed.boundaryDeleted).toBeGreaterThan(10);
      // Deleting summarized messages does not change when summaries are made.
      expect(trimmed.summaryTurns).toEqual(plain.summaryTurns);
      expect(trimmed.summaryTurns).toEqual([5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31, 33, 35, 37, 39]);
      // The stored thread was really trimmed, the untrimmed one was not.
      expect((trimmed.state.values.messages as BaseMessage[]).length).toBeLessThan(20);
      expect(plain.state.values.messages).toHaveLength(80);
      // Spans sent to the summarizer, concatenated, are exactly the covered prefix, each message once.
      const spans = trimmed.summarizer.calls.flatMap((call) => {
        const text = messageText(call.messages[1] as BaseMessage);
        return (/<new_messages>\n([\s\S]*)\n<\/new_messages>/.exec(text)?.[1] ?? "").split("\n");
      });
      const summary = readSummarySlot(trimmed.state.values).summary;
      expect(summary?.coveredCount).toBe(spans.length);
      expect(spans).toEqual(Array.from({ length: spans.length }, (_, i) => transcript(i + 1)));
      // Each re-summary carried the previous summary.
      trimmed.summarizer.calls.slice(1).forEach((call, i) => {
        expect(messageText(call.messages[1] as BaseMessage).startsWith(`<previous_summary>\nS${i + 1}\n</previous_summary>`)).toBe(true);
      });
      expect(summary?.text).toBe(`S${trimmed.summarizer.calls.length}`);
    },
  );
});
