/**
 * `encryptCheckpointer(stack.checkpointer)`: the wrapper hands the stack's ThreadwiseSaver sealed
 * channel values, which it cannot window, archive or delete by. Every turn failed with a bare
 * `TypeError` (`.map is not a function`), archive or not; it is refused with a typed error naming
 * `memory.checkpointer`, and nothing is stored. Encryption with `keyringPath` runs below the saver.
 */
import { ThreadwiseConfigError } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { encryptCheckpointer } from "@threadwise/encryption";
import { memoryStack } from "@threadwise/memory";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { testKeyring } from "../packages/encryption/src/test-support.js";

describe("encryptCheckpointer wrapped around the stack's saver", () => {
  for (const archive of [false, true]) {
    it(`is refused with memory.checkpointer and stores nothing (archive: ${archive})`, async () => {
      const stack = memoryStack({ backend: "in_memory", archive, windowSize: 4 });
      if (!stack.checkpointer) throw new Error("the in_memory stack has a checkpointer");
      const checkpointer = encryptCheckpointer(stack.checkpointer, { keyring: testKeyring(["k1"]) });
      const agent = createAgent({ model: scriptedModel((_m, k) => `a${k + 1}`), middleware: stack.middleware, checkpointer });
      const config = { configurable: { thread_id: "t" } };
      const failure = await agent.invoke({ messages: [{ role: "user", content: "hi" }] }, config).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(ThreadwiseConfigError.isInstance(failure)).toBe(true);
      expect((failure as ThreadwiseConfigError).option).toBe("memory.checkpointer");
      expect((failure as Error).message).toContain("keyringPath");
      expect(await stack.checkpointer.getTuple(config)).toBeUndefined();
      // The same stack runs on its own saver afterwards: the refusal left no turn lease behind.
      const plain = createAgent({ model: scriptedModel(() => "ok"), ...stack });
      const result = await plain.invoke({ messages: [{ role: "user", content: "hi" }] }, config);
      expect(result.messages.at(-1)?.content).toBe("ok");
    });
  }
});
