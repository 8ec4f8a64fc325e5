import { inspect } from "node:util";
import { emptyCheckpoint, MemorySaver, uuid6 } from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { describe, expect, it } from "vitest";
import { type EncryptedCheckpointSaver, encryptCheckpointer } from "./encrypted-checkpointer.js";
import { ThreadwiseKeyringError } from "./errors.js";
import { isSealed } from "./record-cipher.js";
import { SEALED_METADATA_KEY } from "./sealed-metadata.js";
import { testKey, testKeyring } from "./test-support.js";

const keyring = testKeyring(["k1"]);

async function putOne(saver: EncryptedCheckpointSaver<MemorySaver>, threadId: string, step: number, extra: Record<string, unknown>) {
  const checkpoint = {
    ...emptyCheckpoint(),
    id: uuid6(step),
    channel_values: { messages: [`hello ${step}`] },
    channel_versions: { messages: step + 1 },
  };
  return saver.put(
    { configurable: { thread_id: threadId, checkpoint_ns: "" } },
    checkpoint,
    { source: "loop", step, parents: {}, ...extra },
    { messages: step + 1 },
  );
}

describe("encryptCheckpointer", () => {
  it("hands the inner saver sealed values and metadata with only source, step and the sealed copy", async () => {
    const saver = encryptCheckpointer(new MemorySaver(), { keyring });
    const config = await putOne(saver, "t", 1, { user_note: "my secret note", writes: { agent: { text: "secret" } } });
    await saver.putWrites(config, [["messages", ["secret write"]]], "task-1");
    const stored = await saver.inner.getTuple(config);
    expect(isSealed(stored?.checkpoint.channel_values.messages)).toBe(true);
    expect(Object.keys(stored?.metadata ?? {}).sort()).toEqual([SEALED_METADATA_KEY, "source", "step"]);
    expect(stored?.pendingWrites?.every(([, , value]) => isSealed(value))).toBe(true);
    expect(JSON.stringify(stored)).not.toContain("secret");
    const opened = await saver.getTuple(config);
    expect(opened?.checkpoint.channel_values.messages).toEqual(["hello 1"]);
    expect(opened?.metadata).toMatchObject({ source: "loop", step: 1, user_note: "my secret note", writes: { agent: { text: "secret" } } });
    expect(opened?.pendingWrites).toEqual([["task-1", "messages", ["secret write"]]]);
  });

  it.each([
    ["MemorySaver", () => new MemorySaver()],
    ["SqliteSaver", () => SqliteSaver.fromConnString(":memory:")],
  ] as const)("filters on sealed metadata after decryption and applies the limit afterwards (%s)", async (_name, make) => {
    const saver = encryptCheckpointer(make() as MemorySaver, { keyring });
    for (let step = 0; step < 6; step += 1) await putOne(saver, "t", step, { topic: step % 2 === 0 ? "even" : "odd" });
    const list = async (filter: Record<string, unknown>, limit?: number) => {
      const steps: number[] = [];
      for await (const tuple of saver.list({ configurable: { thread_id: "t" } }, { filter, limit }))
        steps.push(tuple.metadata?.step as number);
      return steps;
    };
    expect(await list({ topic: "even" })).toEqual([4, 2, 0]);
    expect(await list({ topic: "odd" }, 2)).toEqual([5, 3]);
    expect(await list({ source: "loop", step: 3 })).toEqual([3]);
    expect(await list({ source: "loop" }, 1)).toEqual([5]);
    expect(await list({ topic: "none" })).toEqual([]);
  });

  it("needs a thread id and a checkpoint id, refuses double wrapping and a missing keyring", async () => {
    const saver = encryptCheckpointer(new MemorySaver(), { keyring });
    await expect(saver.put({ configurable: {} }, emptyCheckpoint(), { source: "input", step: -1, parents: {} }, {})).rejects.toThrow(
      /thread_id/,
    );
    await expect(saver.putWrites({ configurable: { thread_id: "t" } }, [["a", 1]], "task")).rejects.toThrow(/checkpoint_id/);
    expect(() => encryptCheckpointer(saver as never, { keyring })).toThrow(/already encrypted/);
    expect(() => encryptCheckpointer(new MemorySaver(), {}, {})).toThrow(ThreadwiseKeyringError);
    expect(() => encryptCheckpointer(new MemorySaver(), { keyring, agentId: "" })).toThrow(/encryptCheckpointer.agentId/);
  });

  it("holds no root key: neither JSON nor a deep inspect of the saver shows key material (R25, R27)", () => {
    const saver = encryptCheckpointer(new MemorySaver(), { keyring });
    const rootKey = Buffer.from(testKey("k1"), "base64");
    const shown = `${JSON.stringify(saver)} ${JSON.stringify(saver.serializer.cipher)} ${inspect(saver, { depth: 20, showHidden: true })}`;
    expect(shown).not.toContain(testKey("k1"));
    expect(shown).not.toContain(rootKey.toString("hex"));
    expect(shown).not.toContain(rootKey.toString("hex").replace(/(..)(?!$)/g, "$1 ")); // how inspect prints a Buffer
    expect(shown).not.toMatch(/<Buffer/);
    expect(shown).toContain("k1");
  });

  it("derives identity from env twins and delegates versions and deletion", async () => {
    const env = { THREADWISE_MEMORY_TENANT_ID: "acme", THREADWISE_MEMORY_PRINCIPAL_ID: "user-7" };
    const saver = encryptCheckpointer(new MemorySaver(), { keyring, agentId: "a1" }, env);
    expect(saver.serializer.cipher.identity).toEqual({ tenantId: "acme", principalId: "user-7", agentId: "a1" });
    expect(saver.getNextVersion(3)).toBe(4);
    const config = await putOne(saver, "gone", 1, {});
    await saver.deleteThread("gone");
    expect(await saver.getTuple(config)).toBeUndefined();
    // Another principal cannot read the records.
    const other = encryptCheckpointer(saver.inner, { keyring, agentId: "a1" }, { ...env, THREADWISE_MEMORY_PRINCIPAL_ID: "user-8" });
    const kept = await putOne(saver, "kept", 1, {});
    await expect(other.getTuple(kept)).rejects.toMatchObject({ code: "THREADWISE_DECRYPTION_FAILED", problem: "authentication-failed" });
  });
});
