/**
 * `checkpointer.readThread()` at an older checkpoint that holds pending writes (issue 27): a turn sent
 * as `Command({ update: { messages: [user] }, goto: "model_request" })` (the breaker's `goto`
 * operation) stores its user message as a write of LangGraph's null task on the checkpoint it
 * starts from, not as a new input checkpoint. `graph.getState()` at that checkpoint applies the
 * write (LangGraph's `_prepareStateSnapshot`: pending null-task writes), so a run without the
 * archive reads the user message there; `readThread()` reads the checkpoint's stored `messages`
 * only and leaves it out, though its contract is "equals the `messages` of a run that never
 * archived".
 *
 * Found by `STACK_FUZZ_SEED=202 STACK_FUZZ_CASE=1 pnpm vitest run --project slow
 * test/stack.fuzz.slow.test.ts -t archive` (also cases 3 and 4): the fuzz's `edit-old` reads the old
 * checkpoint's thread with `readThread` in the archive run and with `getState` in its control,
 * picks a message by position in each, and the two runs edit different messages from there on.
 * `readThread` now applies the checkpoint's pending null-task writes to `messages`, as `getState` does.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { Command, REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack, type ThreadwiseSaver } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "threadwise-read-pending-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ids = (messages: readonly BaseMessage[]) => messages.map((m) => String(m.id));

describe.each(["in_memory", "sqlite"] as const)("readThread at a checkpoint a goto turn started from (%s)", (backend) => {
  for (const archive of [false, true])
    it(`archive: ${archive}: equals getState's messages there`, async () => {
      const stack = memoryStack({
        backend,
        sqlitePath: join(dir, `${backend}-${archive}.sqlite`),
        windowSize: 4,
        summarize: false,
        recallMaxTokens: false,
        archive,
        logger: false,
        env: {},
      });
      const saver = stack.checkpointer as ThreadwiseSaver;
      const model = scriptedModel((_messages, call) => new AIMessage({ id: `a${call}`, content: `answer ${call}` }));
      const agent = createAgent({ model, checkpointer: saver, middleware: stack.middleware });
      const config = { configurable: { thread_id: "t" } };
      await agent.invoke({ messages: [new HumanMessage({ id: "u0", content: "hello" })] }, config);
      const before = (await agent.graph.getState(config)).config;
      await agent.invoke(
        new Command({ update: { messages: [new HumanMessage({ id: "u1", content: "and then?" })] }, goto: "model_request" }),
        config,
      );
      const at = { configurable: { thread_id: "t", checkpoint_id: before.configurable?.checkpoint_id } };
      const state = ((await agent.graph.getState(at)).values as { messages: BaseMessage[] }).messages;
      expect(ids(state)).toEqual(["u0", "a0", "u1"]);
      expect(ids(await saver.readThread(at))).toEqual(ids(state));
    });

  it("archive: true: a Command that rewrites the thread (REMOVE_ALL_MESSAGES) reads back as what it keeps, as getState there", async () => {
    const stack = memoryStack({
      backend,
      sqlitePath: join(dir, `${backend}-rewrite.sqlite`),
      windowSize: 4,
      summarize: false,
      recallMaxTokens: false,
      archive: true,
      logger: false,
      env: {},
    });
    const saver = stack.checkpointer as ThreadwiseSaver;
    const model = scriptedModel((_messages, call) => new AIMessage({ id: `a${call}`, content: `answer ${call}` }));
    const agent = createAgent({ model, checkpointer: saver, middleware: stack.middleware });
    const config = { configurable: { thread_id: "t" } };
    for (let k = 0; k < 14; k += 1) await agent.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: `u${k}` })] }, config);
    expect((await saver.archivedMessages("t")).length).toBeGreaterThan(0);
    const before = (await agent.graph.getState(config)).config;
    const kept = new HumanMessage({ id: "fresh", content: "start over" });
    await agent.invoke(
      new Command({ update: { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), kept] }, goto: "model_request" }),
      config,
    );
    const at = { configurable: { thread_id: "t", checkpoint_id: before.configurable?.checkpoint_id } };
    const state = ((await agent.graph.getState(at)).values as { messages: BaseMessage[] }).messages;
    expect(ids(state)).toEqual(["fresh"]);
    expect(ids(await saver.readThread(at))).toEqual(ids(state));
  });
});
