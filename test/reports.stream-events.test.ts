/**
 * The summarizer's call seen through `streamEvents` (version "v2"), which reports every nested run.
 *
 * - https://github.com/langchain-ai/deepagentsjs/issues/629 ("`streamEvents` has the same issue —
 *   summary model tokens leak into the event stream"; "no way to distinguish summary output from
 *   normal AI output at the stream level");
 * - https://github.com/langchain-ai/langchainjs/issues/9455 and https://github.com/bytedance/deer-flow/pull/2883
 *   (LangChain's and deer-flow's fix: `callbacks: []` on the internal call, which also drops it from
 *   traces).
 *
 * threadwise keeps internal calls in traces (spec R13), so `streamEvents` reports them; what the
 * reports lacked is telling them apart. Every event that carries the summary must be the internal
 * run's (`threadwise:internal` and `nostream` tags, run name `threadwise/summarize:summary`), and
 * none of the agent's own model events may carry either the summary or those tags.
 */
import { HumanMessage } from "@langchain/core/messages";
import { INTERNAL_CALL_TAGS } from "@threadwise/core";
import { describe, expect, it } from "vitest";
import { stackAgent, summarizerModel } from "./support/report-agent.js";

interface StreamEvent {
  event: string;
  name: string;
  tags?: string[];
  data: { chunk?: unknown; output?: unknown; input?: unknown };
}

describe("public reports: the summarizer's call in streamEvents v2", () => {
  it("every event carrying the summary is the tagged internal run; the agent's model events never are", async () => {
    const summarizer = summarizerModel((call) => `SUMMARY-${call + 1}`);
    const { agent } = stackAgent({ windowSize: 2, summarizeThreshold: 4, summarizer: summarizer.model });
    const config = { configurable: { thread_id: "stream-events" } };
    const withSummary: StreamEvent[] = [];
    const modelEvents: StreamEvent[] = [];
    for (const turn of ["one", "two", "three", "four", "five", "six"]) {
      const events = (await agent.streamEvents({ messages: [new HumanMessage(turn)] }, { ...config, version: "v2" } as never)) as unknown;
      for await (const e of events as AsyncIterable<StreamEvent>) {
        if (!e.event.startsWith("on_chat_model")) continue;
        if (JSON.stringify(e.data?.chunk ?? e.data?.output ?? "").includes("SUMMARY-")) withSummary.push(e);
        if (!(e.tags ?? []).includes("threadwise:internal")) modelEvents.push(e);
      }
    }
    expect(summarizer.inputs.length).toBeGreaterThan(0);
    expect(withSummary.length).toBeGreaterThan(0);
    for (const e of withSummary) {
      expect(e.tags).toEqual(expect.arrayContaining([...INTERNAL_CALL_TAGS]));
      expect(e.name).toBe("threadwise/summarize:summary");
    }
    // The agent's own answers: one start and one end per turn, untagged, without the summary's output.
    expect(modelEvents.filter((e) => e.event === "on_chat_model_end")).toHaveLength(6);
    for (const e of modelEvents) {
      expect(e.tags ?? []).not.toContain("nostream");
      expect(JSON.stringify(e.data?.chunk ?? e.data?.output ?? "")).not.toContain("SUMMARY-");
    }
  });

  it("excludeTags: [\"threadwise:internal\"] leaves the agent's own model events only (the README's filter)", async () => {
    const summarizer = summarizerModel((call) => `SUMMARY-${call + 1}`);
    const { agent } = stackAgent({ windowSize: 2, summarizeThreshold: 4, summarizer: summarizer.model });
    const config = { configurable: { thread_id: "stream-events-filtered" } };
    const ends: StreamEvent[] = [];
    for (const turn of ["one", "two", "three", "four", "five", "six"]) {
      const events = (await agent.streamEvents({ messages: [new HumanMessage(turn)] }, { ...config, version: "v2" } as never, {
        excludeTags: ["threadwise:internal"],
      })) as unknown;
      for await (const e of events as AsyncIterable<StreamEvent>) {
        expect(e.tags ?? []).not.toContain("threadwise:internal");
        // Model events only: the nodes' own events show the memory state, the summary included
        // (the README's table of what each stream shows).
        if (!e.event.startsWith("on_chat_model")) continue;
        expect(JSON.stringify(e.data?.chunk ?? e.data?.output ?? "")).not.toContain("SUMMARY-");
        if (e.event === "on_chat_model_end") ends.push(e);
      }
    }
    // The summarizer ran (so something was filtered out), and every turn's answer is still there.
    expect(summarizer.inputs.length).toBeGreaterThan(0);
    expect(ends).toHaveLength(6);
  });
});
