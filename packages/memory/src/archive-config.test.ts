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

  // Was silent: with no window and no summaries the view is the whole stored thread, and the
  // archive took messages out of it (the model saw 43 messages where a run without it saw 63).
  it("archive with no window and no summarize names memory.archive; a window or summarize is enough", () => {
    const error = configError(() => memoryStack({ archive: true, windowSize: false, summarize: false, env: {} }));
    expect(error.option).toBe("memory.archive");
    expect(error.message).toContain("windowSize");
    expect(
      configError(() => memoryStack({ env: { MEMORY_ARCHIVE: "true", MEMORY_WINDOW_SIZE: "0", MEMORY_SUMMARIZE: "false" } })).option,
    ).toBe("memory.archive");
    expect(memoryStack({ archive: true, windowSize: false, env: {} }).middleware.map((m) => m.name)).toContain(
      "threadwise/message-archive",
    );
    expect(memoryStack({ archive: true, summarize: false, env: {} }).middleware.map((m) => m.name)).toContain("threadwise/message-archive");
  });
});
