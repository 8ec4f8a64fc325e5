/**
 * Mistakes a new user made with `memoryStack()` in `createAgent`, each said with a typed error
 * instead of a stack that silently does less.
 */
import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { ThreadwiseConfigError, ThreadwiseError } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { memoryStack } from "./memory-stack.js";

describe("memoryStack misuse", () => {
  // `{ ...memoryStack(), checkpointer: new MemorySaver() }` ran: the threads went to the user's
  // saver, and with `archive: true` the archived messages to the stack's, where no lease, read or
  // deletion of the agent's thread finds them.
  it("an agent given another checkpointer after the spread is refused at its first turn, naming memory.checkpointer", async () => {
    const stack = memoryStack({ env: {}, archive: true });
    const agent = createAgent({ model: scriptedModel(() => "ok"), tools: [], ...stack, checkpointer: new MemorySaver() });
    const error = await agent
      .invoke({ messages: [new HumanMessage("hi")] }, { configurable: { thread_id: "own" } })
      .catch((e: unknown) => e);
    const found = ThreadwiseError.find(error);
    expect(ThreadwiseConfigError.isInstance(found), String(error)).toBe(true);
    expect((found as ThreadwiseConfigError).option).toBe("memory.checkpointer");
    // The stack's own checkpointer, spread or named, runs.
    const named = createAgent({
      model: scriptedModel(() => "ok"),
      tools: [],
      middleware: stack.middleware,
      checkpointer: stack.checkpointer,
    });
    const out = await named.invoke({ messages: [new HumanMessage("hi")] }, { configurable: { thread_id: "named" } });
    expect(out.messages.at(-1)?.text).toBe("ok");
  });
});
