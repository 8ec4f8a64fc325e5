/**
 * An archived message edited by id in a `Command`'s `update` (issue 27, R37): `Command({ update: {
 * messages: [edited] }, goto: "model_request" })` (LangGraph's documented way to write state and
 * route a turn) or `Command({ update })` alone. LangGraph stores the update as writes of its null
 * task on the head, not as an input checkpoint, and applies them to the `messages` channel: the
 * archived message is not in the hot part, so the reducer appends the edited copy at the end.
 *
 * The same edit sent as the turn's input is refused (`ThreadwiseArchivedMessageError`,
 * `archived-edit`) and stores nothing, as the memory README says of every edit by id of an archived
 * message. Through a `Command` it is taken: the thread read back then holds the edited message at the
 * end of the thread and no longer at its place (`readThread` keeps the hot copy of an id in both), so
 * the model reads the old message as the user's newest words; a run without the archive edits it in
 * place. Now the saver checks such writes as it checks an input (`ThreadwiseSaver.putWrites`).
 * A `RemoveMessage` of an archived id never reaches the saver: LangGraph's reducer fails first.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack, ThreadwiseArchivedMessageError, type ThreadwiseSaver } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "threadwise-archive-command-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ids = (messages: readonly BaseMessage[]) => messages.map((m) => String(m.id));
let stacks = 0;

async function archivedThread(backend: "in_memory" | "sqlite") {
  stacks += 1;
  const stack = memoryStack({
    backend,
    sqlitePath: join(dir, `stack-${stacks}.sqlite`),
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
  return { saver, agent, config };
}

describe.each(["in_memory", "sqlite"] as const)("an archived message edited in a Command's update (%s)", (backend) => {
  it("sent as the turn's input: refused, nothing stored", async () => {
    const { saver, agent, config } = await archivedThread(backend);
    expect(ids(await saver.archivedMessages("t"))).toContain("u1");
    const before = ids(await saver.readThread(config));
    const input = { messages: [new HumanMessage({ id: "u1", content: "u1 edited" }), new HumanMessage({ id: "next", content: "next" })] };
    const error = await agent.invoke(input, config).catch((e: unknown) => e);
    expect(ThreadwiseArchivedMessageError.find(error)?.reason).toBe("archived-edit");
    expect(ids(await saver.readThread(config))).toEqual(before);
  });

  for (const goto of [true, false])
    it(`sent in Command({ update${goto ? ', goto: "model_request"' : ""} }): refused as the input is, nothing stored`, async () => {
      const { saver, agent, config } = await archivedThread(backend);
      const before = ids(await saver.readThread(config));
      const update = {
        messages: [new HumanMessage({ id: "u1", content: "u1 edited" }), new HumanMessage({ id: "next", content: "next" })],
      };
      const command = goto ? new Command({ update, goto: "model_request" }) : new Command({ update });
      const error = await agent.invoke(command as never, config).catch((e: unknown) => e);
      expect(ThreadwiseArchivedMessageError.find(error)?.reason).toBe("archived-edit");
      expect(ids(await saver.readThread(config))).toEqual(before);
    });

  // The memory README said a RemoveMessage of an archived id was refused archived-edit in all three
  // (found by helper newuser30): LangGraph's reducer applies the removal to the hot part first and
  // fails there, before the saver sees a write. What the README says now: the reducer's error,
  // nothing stored, the thread free for its next turn.
  for (const via of ["Command({ update })", "updateState"] as const)
    it(`a RemoveMessage of an archived id in ${via}: LangGraph's reducer error (not the typed one), nothing stored, the next turn runs`, async () => {
      const { saver, agent, config } = await archivedThread(backend);
      expect(ids(await saver.archivedMessages("t"))).toContain("u1");
      const before = ids(await saver.readThread(config));
      const update = { messages: [new RemoveMessage({ id: "u1" })] };
      const error = await (via === "updateState"
        ? agent.graph.updateState(config, update)
        : agent.invoke(new Command({ update, goto: "model_request" }) as never, config)
      ).catch((e: unknown) => e);
      expect(String((error as Error | undefined)?.message)).toContain(
        "Attempting to delete a message with an ID that doesn't exist ('u1')",
      );
      expect(ThreadwiseArchivedMessageError.find(error)).toBeUndefined();
      expect(ids(await saver.readThread(config))).toEqual(before);
      await agent.invoke({ messages: [new HumanMessage({ id: "after", content: "after" })] }, config);
      expect(ids(await saver.readThread(config)).slice(0, -1)).toEqual([...before, "after"]);
    });
});
