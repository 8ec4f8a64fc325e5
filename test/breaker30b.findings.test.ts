/**
 * Failures found by the breaker30b scenarios. 1 is a known failure (`it.fails`: it passes once
 * fixed, then turn it into `it`). 2 is fixed: persistTrim and the message archive leave a mark of
 * what they take (persistTrim's in the thread's summary slot, `trimmed`; the archive's in its rows,
 * asked through `ThreadwiseSaver.archivedAmong`), and memoryStack gives factRecall and userMemory
 * `trims: false`, so a user message gone that no mark names was removed, with the archive on and
 * off alike (`test/trim-marks.test.ts`: persistTrim, the archive, both; MemorySaver and SQLite;
 * English and Korean).
 *
 * 1. workMemory's commit depends on a per-process record (R37). `afterAgent` stores the run's answer
 *    only with the record `wrapModelCall` left in the process (the response, to tell a replaced
 *    answer; the structured response; the agent's model for the condensation). A run interrupted
 *    after its model call (an output check's `interrupt()` in an `afterAgent` hook listed after
 *    workMemory, as the README asks checks to be placed) and resumed in another process (a restart,
 *    another replica: the usual way a human-in-the-loop review comes back) finds no record and
 *    skips (`no_model_response`); resumed in the process that ran it, it stores the note. Every
 *    later request of the thread carries the work-memory block in one case and not the other.
 *    userMemory's `llm` facts without `userMemory({ model })` depend on the same kind of record
 *    (`models.get(threadId)`): a fresh process's resume extracts with the rules instead.
 * 2. A `RemoveMessage` of the thread's oldest user message(s) keeps what they said: factRecall
 *    keeps their facts, userMemory keeps their message items and facts for the user's other
 *    threads (both READMEs then: "cannot be told apart from a trim from the stored thread alone").
 *    Reviewers' check "a fact from a removed message is recalled nowhere" failed there. Fixed by
 *    the marks above.
 */
import { type BaseMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { Command, interrupt, MemorySaver } from "@langchain/langgraph";
import { messageText, readSummarySlot } from "@threadwise/core";
import { scriptedModel, strictModel } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { workMemory } from "@threadwise/work-memory";
import { createAgent, createMiddleware } from "langchain";
import { describe, expect, it } from "vitest";

describe("breaker30b's findings", () => {
  // Known failure (it.fails until workMemory keeps what afterAgent needs in state).
  it.fails("1. workMemory: a run resumed after an afterAgent interrupt stores its note in the process that ran it, not in a fresh one", async () => {
    const build = (checkpointer: MemorySaver) => {
      const model = scriptedModel(() => "Booked seat 12A on flight KE123.");
      const condenser = scriptedModel((m: BaseMessage[]) => `kept ${(m.at(-1)?.text ?? "").split("\n")[1]}`);
      const approve = createMiddleware({
        name: "approve-answer",
        afterAgent: () => {
          interrupt("approve the answer?");
          return undefined;
        },
      });
      return createAgent({ model, checkpointer, middleware: [workMemory({ model: condenser, logger: false }), approve] });
    };
    const checkpointer = new MemorySaver();
    const a = build(checkpointer);
    const config = { configurable: { thread_id: "wm-resume" } };
    await a.invoke({ messages: [new HumanMessage("book seat 12A")] }, config);
    const waiting = await a.graph.getState(config);
    expect(waiting.next).toEqual(["approve-answer.after_agent"]);
    // Both resume the same checkpoint: a fresh process first, then the one that ran the turn.
    const fresh = build(checkpointer);
    await fresh.invoke(new Command({ resume: true }), waiting.config as never);
    const freshNotes = readSummarySlot((await fresh.graph.getState(config)).values).workMemory?.entries.map((e) => e.text) ?? [];
    await a.invoke(new Command({ resume: true }), waiting.config as never);
    const ourNotes = readSummarySlot((await a.graph.getState(config)).values).workMemory?.entries.map((e) => e.text) ?? [];
    expect(ourNotes).toEqual(["kept Booked seat 12A on flight KE123."]);
    expect(freshNotes).toEqual(ourNotes);
  });

  // Fixed: persistTrim's and the archive's marks; memoryStack passes `trims: false`.
  it("2. RemoveMessage of the oldest user message: its fact is recalled neither in the thread nor in the user's other threads", async () => {
    const model = strictModel({ answer: (_m, call) => `Noted, answer ${call}.` });
    const stack = memoryStack({
      env: {},
      backend: "in_memory",
      windowSize: 2,
      summarize: false,
      factsMode: "heuristic",
      recallMaxTokens: false,
      userMemory: true,
      logger: false,
    });
    const agent = createAgent({ model, systemPrompt: "S", ...stack });
    const t1 = { configurable: { thread_id: "t1", user_id: "u1" } };
    await agent.invoke({ messages: [new HumanMessage({ id: "u-hana", content: "My sister Hana lives in Jeju." })] }, t1);
    for (const content of ["I bought a red bike.", "It rained all day."]) await agent.invoke({ messages: [new HumanMessage(content)] }, t1);
    await agent.graph.updateState(t1, { messages: [new RemoveMessage({ id: "u-hana" })] });
    await agent.invoke({ messages: [new HumanMessage("Where does Hana live?")] }, t1);
    const inThread = (model.calls.at(-1) as { messages: BaseMessage[] }).messages.map((m) => messageText(m)).join("\n");
    await agent.invoke({ messages: [new HumanMessage("Where does Hana live?")] }, { configurable: { thread_id: "t2", user_id: "u1" } });
    const elsewhere = (model.calls.at(-1) as { messages: BaseMessage[] }).messages.map((m) => messageText(m)).join("\n");
    expect(model.providerLog.rejected).toEqual([]);
    expect(inThread).not.toContain("Jeju");
    expect(elsewhere).not.toContain("Jeju");
  });
});
