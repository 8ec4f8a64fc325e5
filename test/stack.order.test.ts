/**
 * A new user swapped the README's `[windowTrim(), summarize()]` into `[summarize(), windowTrim()]`:
 * summarize, outside, keeps its own window (20) and every message its summary does not cover, so
 * windowTrim's window of 4 silently never applied (every request held the whole thread until the
 * first summary, and 20 messages after). Either order is supported (the property tests permute
 * the stack), so windowTrim says it once through its logger instead of refusing.
 */
import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { scriptedModel } from "@threadwise/core/testing";
import { summarize } from "@threadwise/summarize";
import { windowTrim } from "@threadwise/window-trim";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";

async function run(order: "window first" | "summarize first") {
  const warnings: string[] = [];
  const logger = { info() {}, warn: (message: string) => void warnings.push(message) };
  const window = windowTrim({ maxMessages: 4, logger });
  const summary = summarize({ model: scriptedModel(() => "a summary"), threshold: 6, logger: false });
  const model = scriptedModel((_messages, call) => `answer ${call}`);
  const agent = createAgent({
    model,
    tools: [],
    checkpointer: new MemorySaver(),
    middleware: order === "window first" ? [window, summary] : [summary, window],
  });
  for (let i = 0; i < 6; i += 1)
    await agent.invoke({ messages: [new HumanMessage(`turn ${i}`)] }, { configurable: { thread_id: "order" } });
  const sent = model.calls.map((call) => (call as { messages: unknown[] }).messages.length);
  return { warnings, sent };
}

describe("[summarize(), windowTrim()]: the window that does not apply is said", () => {
  it("warns once, naming the order to use; the README's order sends the window and warns nothing", async () => {
    const swapped = await run("summarize first");
    expect(swapped.sent).toEqual([1, 3, 5, 7, 9, 11]);
    expect(swapped.warnings).toHaveLength(1);
    expect(swapped.warnings[0]).toContain("put windowTrim first: [windowTrim(), summarize()]");
    const documented = await run("window first");
    expect(documented.sent).toEqual([1, 3, 5, 4, 4, 4]);
    expect(documented.warnings).toEqual([]);
  });
});
