/**
 * A user message stored between an AI message's tool calls and their results, as a resume that also
 * writes a message leaves it: `Command({ resume, update: { messages: [note] } })` on a
 * human-in-the-loop review (https://github.com/langchain-ai/langgraphjs/pull/1146 "allow resume +
 * update at the same time") applies the update before the reviewed tools run, so the thread stores
 * `[AI(calls), note, result, result]`.
 *
 * - https://github.com/unslothai/unsloth/pull/10091 "send tool results to the model in the right
 *   order" (a text placed before a tool result: "the tool result never reaches the model at all.
 *   The model answers as if the tool never ran"), https://github.com/QwenLM/qwen-code/pull/8165
 *   (tool_result blocks first, then the user's text).
 *
 * Providers refuse anything between a call and its results, so the view must send the results right
 * after the call and the note after them, as it already does when the note comes after the first
 * result (`deferredResults` in core's groups.ts). With the note before every result the view drops
 * the AI message's calls and every result as orphans: the model never sees that the tools ran (here:
 * that the seat was booked) and calls them again. Now the view defers such a note too (user messages
 * only: an AI answer between means a model call saw the call unanswered).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { PROVIDERS, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { humanInTheLoopMiddleware } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { isTool, lastOf, requests, stackAgent, storedMessages } from "./support/report-agent.js";

/** The agent's model: `BOOK` calls `book` and `lookup` in parallel; after results it reports them; otherwise "ok: <last text>". */
function bookingModel() {
  return strictModel({
    answer: (messages) => {
      const last = lastOf(messages);
      // Results after the newest call (the note, if any, sent after them): report them.
      let called = messages.length - 1;
      while (called >= 0 && ((messages[called] as AIMessage).tool_calls ?? []).length === 0) called -= 1;
      if (called !== -1 && messages.slice(called).some(isTool)) return `done: ${messages.filter(isTool).map(messageText).join(", ")}`;
      if (messageText(last).startsWith("BOOK"))
        return new AIMessage({
          content: "",
          tool_calls: [
            { id: "call_book", name: "book", args: { seat: "1A" }, type: "tool_call" },
            { id: "call_lookup", name: "lookup", args: { n: 1 }, type: "tool_call" },
          ],
        });
      return `ok: ${messageText(last)}`;
    },
  });
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe.each(["in_memory", "sqlite"] as const)("public reports: a note written between the calls and their results (%s)", (backend) => {
  it("an approved review resumed with Command({ resume, update }): the model sees the calls, both results and the note", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tw-note-"));
    dirs.push(dir);
    const model = bookingModel();
    const { agent } = stackAgent({
      backend,
      sqlitePath: join(dir, "memory.sqlite"),
      windowSize: 8,
      model,
      extra: [humanInTheLoopMiddleware({ interruptOn: { book: true } }) as never],
    });
    const config = { configurable: { thread_id: "note-before-results" } };
    await agent.invoke({ messages: [new HumanMessage("hello")] }, config);
    await agent.invoke({ messages: [new HumanMessage("BOOK a seat")] }, config);
    await agent.invoke(
      new Command({
        resume: { decisions: [{ type: "approve" }] },
        update: { messages: [new HumanMessage({ id: "note", content: "a window seat, please" })] },
      }) as never,
      config,
    );
    const stored = await storedMessages(agent.graph as never, "note-before-results");
    // The tools ran once each, after the note.
    expect(stored.filter(isTool).map(messageText).sort()).toEqual(["booked seat 1A", "result 1"]);
    const afterTools = requests(model).at(-1) as BaseMessage[];
    expect(validateProviderRequest(afterTools, { providers: PROVIDERS })).toEqual([]);
    const sentCalls = afterTools.flatMap((m) => (m as AIMessage).tool_calls ?? []).map((c) => c.id);
    expect(sentCalls).toEqual(expect.arrayContaining(["call_book", "call_lookup"]));
    expect(afterTools.filter(isTool).map((m) => (m as ToolMessage).tool_call_id)).toEqual(
      expect.arrayContaining(["call_book", "call_lookup"]),
    );
    expect(afterTools.some((m) => messageText(m).includes("a window seat, please"))).toBe(true);
    // The model answered the results; it did not call the tools again.
    expect(messageText(lastOf(stored))).toMatch(/^done: /);
  });
});

describe("a review's note, then a result written twice, then the other result", () => {
  // `[AI(book, lookup), note, result book, result book again, result lookup]` (a tool retried after
  // the resume, a result imported twice): the second result of `book` is left out alone, as one
  // right after the call is. Was: the run of results was not taken past the duplicate, so the view
  // sent neither call nor result (the model never saw that the seat was booked).
  for (const archive of [false, true])
    for (const lang of ["en", "ko"] as const)
      it(`archive ${archive ? "on" : "off"}, ${lang}: the model sees both calls with one result each and the note`, async () => {
        const note = lang === "en" ? "Note: aisle is fine too." : "메모: 통로 쪽도 괜찮아요.";
        const model = bookingModel();
        const { agent } = stackAgent({ model, windowSize: 10, stack: { archive } });
        const config = { configurable: { thread_id: `dup-after-note-${archive}-${lang}` } };
        const result = (id: string, callId: string, content: string) => new ToolMessage({ id, tool_call_id: callId, content });
        await agent.graph.updateState(config, {
          messages: [
            new HumanMessage({ id: "q", content: lang === "en" ? "BOOK seat 1A" : "BOOK 1A 좌석" }),
            new AIMessage({
              id: "calls",
              content: "",
              tool_calls: [
                { id: "call_book", name: "book", args: { seat: "1A" }, type: "tool_call" },
                { id: "call_lookup", name: "lookup", args: { n: 1 }, type: "tool_call" },
              ],
            }),
            new HumanMessage({ id: "note", content: note }),
            result("r1", "call_book", "booked seat 1A"),
            result("r1b", "call_book", "booked seat 1A"),
            result("r2", "call_lookup", "result 1"),
            new AIMessage({ id: "done", content: "done" }),
          ],
        } as never);
        await agent.invoke({ messages: [new HumanMessage(lang === "en" ? "Is it booked?" : "예약됐어요?")] }, config);
        const first = requests(model)[0] as BaseMessage[];
        expect(validateProviderRequest(first, { providers: PROVIDERS, noPrefill: true })).toEqual([]);
        expect(first.filter(isTool).map((m) => (m as ToolMessage).tool_call_id)).toEqual(["call_book", "call_lookup"]);
        expect(first.map((m) => messageText(m))).toContain(note);
        expect(((first.find((m) => m.id === "calls") as AIMessage | undefined)?.tool_calls ?? []).map((c) => c.id)).toEqual([
          "call_book",
          "call_lookup",
        ]);
      });
});
