/**
 * Failures found by the breaker30b scenarios, both fixed (session 51).
 * 1 (wmresume31): workMemory and userMemory keep what their commit needs in the thread's state.
 * 2 (marks31): persistTrim and the message archive leave a mark of what they take (persistTrim's in
 * the thread's summary slot, `trimmed`; the archive's in its rows, asked through
 * `ThreadwiseSaver.archivedAmong`), and memoryStack gives factRecall and userMemory `trims: false`,
 * so a user message gone that no mark names was removed, with the archive on and off alike
 * (`test/trim-marks.test.ts`: persistTrim, the archive, both; MemorySaver and SQLite; English and
 * Korean).
 *
 * 1. (fixed) workMemory's commit depended on a per-process record (R37). `afterAgent` stores the run's answer
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
import { Command, InMemoryStore, interrupt, MemorySaver } from "@langchain/langgraph";
import { messageText, readSummarySlot } from "@threadwise/core";
import { scriptedModel, strictModel } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { readUserItems, UserItemCodec, userMemory } from "@threadwise/user-memory";
import { workMemory } from "@threadwise/work-memory";
import { createAgent, createMiddleware } from "langchain";
import { describe, expect, it } from "vitest";

describe("breaker30b's findings", () => {
  it("1. workMemory: a run resumed after an afterAgent interrupt stores the same note in a fresh process as in the one that ran it", async () => {
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

  // Without workMemory({ model }) the agent's model condenses, and it is reachable in a model call
  // only: the note is made there and waits in the checkpoint with the record, so a fresh process
  // (which has made no model call) commits the same note.
  for (const [lang, answer] of [
    ["en", "Booked seat 12A on flight KE123."],
    ["ko", "KE123편 12A 좌석을 예약했습니다."],
  ] as const) {
    it(`1b. workMemory without a model of its own (${lang}): a fresh process resuming the run stores what the process that ran it stores`, async () => {
      const condensing = (m: BaseMessage[]) => messageText(m[0] as BaseMessage).startsWith("You keep the work memory");
      const build = (checkpointer: MemorySaver) => {
        const model = scriptedModel((m: BaseMessage[]) => (condensing(m) ? `kept ${(m.at(-1)?.text ?? "").split("\n")[1]}` : answer));
        const approve = createMiddleware({
          name: "approve-answer",
          afterAgent: () => {
            interrupt("approve the answer?");
            return undefined;
          },
        });
        return { model, agent: createAgent({ model, checkpointer, middleware: [workMemory({ logger: false }), approve] }) };
      };
      const checkpointer = new MemorySaver();
      const a = build(checkpointer);
      const config = { configurable: { thread_id: `wm-resume-own-${lang}` } };
      await a.agent.invoke({ messages: [new HumanMessage("book seat 12A")] }, config);
      const waiting = await a.agent.graph.getState(config);
      expect(waiting.next).toEqual(["approve-answer.after_agent"]);
      const fresh = build(checkpointer);
      await fresh.agent.invoke(new Command({ resume: true }), waiting.config as never);
      const freshNotes = readSummarySlot((await fresh.agent.graph.getState(config)).values).workMemory?.entries.map((e) => e.text) ?? [];
      await a.agent.invoke(new Command({ resume: true }), waiting.config as never);
      const ourNotes = readSummarySlot((await a.agent.graph.getState(config)).values).workMemory?.entries.map((e) => e.text) ?? [];
      expect(ourNotes).toEqual([`kept ${answer}`]);
      expect(freshNotes).toEqual(ourNotes);
      // The condensation ran once, in the model call of the process that ran the turn.
      expect(a.model.calls.filter((c) => condensing((c as { messages: BaseMessage[] }).messages))).toHaveLength(1);
      expect(fresh.model.calls).toHaveLength(0);
    });
  }

  // userMemory's `llm` facts without userMemory({ model }) read the run's messages with the agent's
  // model in its model call; the facts wait in the checkpoint for the commit. A fact the rules do
  // not read (a car's colour), so only the model's answer can have stored it.
  for (const [lang, said, fact] of [
    ["en", "Blue, like my old Volvo, which I still drive.", { value: "blue", text: "The user drives a blue car." }],
    ["ko", "파란색이요, 예전 볼보처럼요. 아직도 타요.", { value: "파란색", text: "사용자는 파란 차를 탄다." }],
  ] as const) {
    it(`1c. userMemory llm facts without a model of its own (${lang}): a fresh process resuming the run extracts what the process that ran it extracts`, async () => {
      const extracting = (m: BaseMessage[]) => messageText(m[0] as BaseMessage).startsWith("You extract durable facts");
      const answer = JSON.stringify({ facts: [{ subject: "user", attribute: "car color", ...fact }] });
      const build = (checkpointer: MemorySaver, store: InMemoryStore) => {
        const model = scriptedModel((m: BaseMessage[]) => (extracting(m) ? answer : "Noted."), { strict: false });
        const approve = createMiddleware({
          name: "approve-answer",
          afterAgent: () => {
            interrupt("approve the answer?");
            return undefined;
          },
        });
        const middleware = [userMemory({ factsMode: "llm", keepMessages: false, logger: false }), approve];
        return { model, agent: createAgent({ model, checkpointer, store, middleware }) };
      };
      const factsIn = async (store: InMemoryStore) =>
        (await readUserItems(store, { tenantId: "default", userId: "u1" }, new UserItemCodec(), 100))
          .filter((item) => item.kind === "fact")
          .map((item) => [item.fact?.attribute, item.fact?.value, item.fact?.origin]);
      const checkpointer = new MemorySaver();
      const ours = new InMemoryStore();
      const a = build(checkpointer, ours);
      const config = { configurable: { thread_id: `um-resume-${lang}`, user_id: "u1" } };
      await a.agent.invoke({ messages: [new HumanMessage(said)] }, config);
      const waiting = await a.agent.graph.getState(config);
      expect(waiting.next).toEqual(["approve-answer.after_agent"]);
      // Each resumes the same checkpoint into a store of its own, to compare what each commits.
      const theirs = new InMemoryStore();
      const fresh = build(checkpointer, theirs);
      const resume = { configurable: { ...waiting.config.configurable, user_id: "u1" } };
      await fresh.agent.invoke(new Command({ resume: true }), resume);
      await a.agent.invoke(new Command({ resume: true }), resume);
      expect(await factsIn(ours)).toEqual([["car color", fact.value, "llm"]]);
      expect(await factsIn(theirs)).toEqual(await factsIn(ours));
      // Read once, in the model call of the process that ran the turn.
      expect(a.model.calls.filter((c) => extracting((c as { messages: BaseMessage[] }).messages))).toHaveLength(1);
      expect(fresh.model.calls).toHaveLength(0);
    });
  }

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
