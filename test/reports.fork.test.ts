/**
 * Forks of a summarized thread: a turn or an `updateState` from an older checkpoint.
 *
 * - https://github.com/langchain-ai/langchain-google/issues/1333 "`update_state` on a historical
 *   checkpoint incorrectly aggregates with subsequent thread state when using `messages`";
 * - https://github.com/langchain-ai/langgraph/issues/4987 "time travel then invoke, checkpoint id no
 *   longer updates" (the turns after a fork must go on from the fork's head).
 *
 * On the stack the thread has more than messages: the summary of what left the window. A fork from
 * before the summary must show the model only its own past: none of the later branch's messages,
 * and no summary of them.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { messageText, readSummarySlot } from "@threadwise/core";
import { PROVIDERS, scriptedModel, validateProviderRequest } from "@threadwise/core/testing";
import { describe, expect, it } from "vitest";
import { requests, stackAgent } from "./support/report-agent.js";

/**
 * A summarizer whose summary lists the turns it read (`covers: turn 1, fork 2, ...`), its earlier
 * summary's included: a summary built on another branch's shows that branch's turns.
 */
function labelSummarizer() {
  const inputs: BaseMessage[][] = [];
  const model = scriptedModel((messages) => {
    inputs.push(messages);
    const labels = [...new Set(JSON.stringify(messages.map((m) => messageText(m))).match(/(turn|fork) \d+/g) ?? [])];
    return `covers: ${labels.join(", ")}`;
  });
  return { model, inputs };
}

const humans = (messages: readonly BaseMessage[]) => messages.filter((m) => m.getType() === "human").map((m) => messageText(m));

/**
 * Runs `body` on a summarized thread `threadId` on `backend`: the stack agent (window 4, summary
 * at 6 messages, {@link labelSummarizer}) after turns `turn 1` to `turn 8`, and the config of the
 * checkpoint that ended turn `forkAfter` (its user messages, nothing left to run). The SQLite file
 * is removed afterwards.
 */
async function onSummarizedThread(
  backend: "in_memory" | "sqlite",
  threadId: string,
  forkAfter: number,
  body: (thread: {
    agent: ReturnType<typeof stackAgent>["agent"];
    model: ReturnType<typeof stackAgent>["model"];
    summarizer: ReturnType<typeof labelSummarizer>;
    config: { configurable: { thread_id: string } };
    forkFrom: Record<string, unknown>;
  }) => Promise<void>,
) {
  const dir = mkdtempSync(join(tmpdir(), "tw-reports-fork-"));
  try {
    const summarizer = labelSummarizer();
    const { agent, model } = stackAgent({
      backend,
      sqlitePath: join(dir, "m.sqlite"),
      windowSize: 4,
      summarizeThreshold: 6,
      summarizer: summarizer.model,
      systemPrompt: false,
    });
    const config = { configurable: { thread_id: threadId } };
    for (let k = 1; k <= 8; k += 1) await agent.invoke({ messages: [new HumanMessage(`turn ${k}`)] }, config);
    let forkFrom: Record<string, unknown> | undefined;
    for await (const snapshot of agent.graph.getStateHistory(config)) {
      const messages = (snapshot.values as { messages?: BaseMessage[] }).messages ?? [];
      if (snapshot.next.length === 0 && humans(messages).length === forkAfter) forkFrom ??= snapshot.config as Record<string, unknown>;
    }
    expect(forkFrom).toBeDefined();
    await body({ agent, model, summarizer, config, forkFrom: forkFrom as Record<string, unknown> });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("public reports: forks of a summarized thread", () => {
  for (const backend of ["in_memory", "sqlite"] as const) {
    it(`${backend}: updateState on a checkpoint before the summary, then turns on it: each request holds only the fork's past`, () =>
      onSummarizedThread(backend, "fork-summary", 2, async ({ agent, model, config, forkFrom }) => {
        expect(readSummarySlot((await agent.graph.getState(config)).values).summary?.text).toMatch(/covers: turn 1, .*turn 4/);
        const forked = await agent.graph.updateState(forkFrom as never, { messages: [new HumanMessage("fork 3")] } as never);
        // The head is the fork now: a turn without a checkpoint id goes on from it.
        const head = await agent.graph.getState(config);
        expect(humans((head.values as { messages: BaseMessage[] }).messages)).toEqual(["turn 1", "turn 2", "fork 3"]);
        expect(readSummarySlot(head.values).summary?.text ?? "").toBe("");
        await agent.invoke({ messages: [new HumanMessage("fork 4")] }, config);
        const after = await agent.graph.getState(config);
        expect(after.config.configurable?.checkpoint_id).not.toBe(forked.configurable?.checkpoint_id);
        expect(humans((after.values as { messages: BaseMessage[] }).messages)).toEqual(["turn 1", "turn 2", "fork 3", "fork 4"]);
        const last = requests(model).at(-1) as BaseMessage[];
        expect(validateProviderRequest(last, { providers: PROVIDERS })).toEqual([]);
        const sent = JSON.stringify(last.map((m) => messageText(m)));
        // The fork's 6 messages reached the threshold: turn 1 left the window and is summarized,
        // from the fork's messages only.
        expect(sent).not.toMatch(/turn [3-8]\b/);
        expect(sent).toContain("fork 3");
        expect(sent).toContain("fork 4");
        expect(readSummarySlot(after.values).summary?.text).toBe("covers: turn 1");
      }));

    it(`${backend}: a turn from a checkpoint before the summary, then more turns: summaries of the fork hold only the fork`, () =>
      onSummarizedThread(backend, "fork-turns", 1, async ({ agent, model, summarizer, config, forkFrom }) => {
        const firstFork = summarizer.inputs.length;
        await agent.invoke({ messages: [new HumanMessage("fork 2")] }, forkFrom as never);
        for (let k = 3; k <= 8; k += 1) await agent.invoke({ messages: [new HumanMessage(`fork ${k}`)] }, config);
        expect(model.providerLog.rejections).toBe(0);
        // Every summarizer call on the fork saw only the fork's messages.
        const forkInputs = summarizer.inputs.slice(firstFork);
        expect(forkInputs.length).toBeGreaterThan(0);
        for (const input of forkInputs) expect(JSON.stringify(input.map((m) => messageText(m)))).not.toMatch(/turn [2-8]\b/);
        const last = requests(model).at(-1) as BaseMessage[];
        const sent = JSON.stringify(last.map((m) => messageText(m)));
        expect(sent).toMatch(/covers: turn 1, fork 2/);
        expect(sent).not.toMatch(/turn [2-8]\b/);
      }));
  }
});
