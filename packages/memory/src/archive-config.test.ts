/**
 * Mistakes a new user makes turning the archive on, each refused at construction with a typed
 * error naming the option (found following the memory README's "Archive" from the outside).
 */
import { MemorySaver } from "@langchain/langgraph";
import { ThreadwiseConfigError } from "@threadwise/core";
import { describe, expect, it } from "vitest";
import { resolveMemoryConfig } from "./config.js";
import { memoryStack } from "./memory-stack.js";
import { messageArchive } from "./message-archive.js";
import { memoryMiddleware } from "./middleware-stack.js";

function configError(fn: () => unknown): ThreadwiseConfigError {
  try {
    fn();
  } catch (error) {
    if (ThreadwiseConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a ThreadwiseConfigError");
}

describe("archive configuration mistakes", () => {
  // Was a TypeError "saver.archiveMessages is not a function" at the first model call that archived.
  it("messageArchive on a saver that cannot archive (a plain MemorySaver) names messageArchive.saver", () => {
    const error = configError(() => messageArchive(new MemorySaver() as never));
    expect(error.option).toBe("messageArchive.saver");
    expect(error.message).toContain("got MemorySaver");
    expect(configError(() => messageArchive(undefined as never)).option).toBe("messageArchive.saver");
  });

  // Was silent: the stack had no messageArchive, so the checkpoint kept every message.
  it("memoryMiddleware with archive on and no checkpointer names memory.archive", () => {
    const config = resolveMemoryConfig({ archive: true }, {});
    expect(configError(() => memoryMiddleware(config)).option).toBe("memory.archive");
    expect(memoryMiddleware(resolveMemoryConfig({ archive: false }, {})).length).toBeGreaterThan(0);
  });

  it("memoryStack({ archive: true }) builds messageArchive on its own ThreadwiseSaver", () => {
    const stack = memoryStack({ archive: true, env: {} });
    expect(stack.middleware.map((m) => m.name)).toContain("threadwise/message-archive");
    expect(configError(() => memoryStack({ archive: "yes" as never, env: {} })).option).toBe("memory.archive");
  });
});
