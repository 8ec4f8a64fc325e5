/**
 * Cost of encryption at rest: AES-256-GCM seal/open per record size, and `put` + `getTuple` of a
 * growing thread on MemorySaver and SqliteSaver, plain vs `encryptCheckpointer`.
 * Run: `pnpm tsx packages/encryption/bench/encryption.ts`. Prints a table; no assertions.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { type BaseCheckpointSaver, emptyCheckpoint, MemorySaver, uuid6 } from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { encryptCheckpointer } from "../src/encrypted-checkpointer.js";
import { RecordCipher } from "../src/record-cipher.js";
import { tempDir, testKeyring } from "../src/test-support.js";

const keyring = testKeyring(["k1"]);
const cipher = new RecordCipher(keyring, { tenantId: "t", agentId: "a", principalId: "p" });
const at = { threadId: "thread", recordId: "record" };

function time(runs: number, fn: () => void): number {
  for (let i = 0; i < Math.min(50, runs); i += 1) fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < runs; i += 1) fn();
  return Number(process.hrtime.bigint() - start) / 1e3 / runs;
}

async function timeAsync(runs: number, fn: (i: number) => Promise<void>): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < runs; i += 1) await fn(i);
  return Number(process.hrtime.bigint() - start) / 1e3 / runs;
}

console.log("record size | seal µs | open µs | stored size");
for (const size of [256, 4_096, 65_536, 1_048_576]) {
  const payload = Buffer.alloc(size, 7);
  const sealed = cipher.seal(payload, "channel-value", at);
  const runs = size > 100_000 ? 50 : 2_000;
  const seal = time(runs, () => cipher.seal(payload, "channel-value", at));
  const open = time(runs, () => cipher.open(sealed, "channel-value", at));
  console.log(`${String(size).padStart(11)} | ${seal.toFixed(1).padStart(7)} | ${open.toFixed(1).padStart(7)} | ${sealed.length}`);
}

/** A thread of `turns` user/assistant pairs, put as one checkpoint per turn, then read back. */
async function thread(saver: BaseCheckpointSaver, turns: number): Promise<{ put: number; get: number }> {
  const messages: unknown[] = [];
  let config = { configurable: { thread_id: `bench-${Math.random()}`, checkpoint_ns: "" } } as Record<string, unknown>;
  const put = await timeAsync(turns, async (i) => {
    messages.push(new HumanMessage(`question ${i} ${"x".repeat(200)}`), new AIMessage(`answer ${i} ${"y".repeat(400)}`));
    const checkpoint = {
      ...emptyCheckpoint(),
      id: uuid6(i),
      channel_values: { messages: [...messages] },
      channel_versions: { messages: i + 1 },
    };
    config = (await saver.put(config, checkpoint, { source: "loop", step: i, parents: {} }, { messages: i + 1 })) as Record<
      string,
      unknown
    >;
  });
  const get = await timeAsync(20, async () => {
    await saver.getTuple(config);
  });
  return { put, get };
}

const dir = tempDir("tw-enc-bench-");
console.log("\nsaver (100 turns) | put µs/turn | getTuple µs");
for (const [name, make] of [
  ["MemorySaver", () => new MemorySaver()],
  ["MemorySaver encrypted", () => encryptCheckpointer(new MemorySaver(), { keyring })],
  ["SqliteSaver", () => SqliteSaver.fromConnString(join(dir, `plain-${Math.random()}.db`))],
  ["SqliteSaver encrypted", () => encryptCheckpointer(SqliteSaver.fromConnString(join(dir, `enc-${Math.random()}.db`)), { keyring })],
] as Array<[string, () => BaseCheckpointSaver]>) {
  const result = await thread(make(), 100);
  console.log(`${name.padEnd(21)} | ${result.put.toFixed(0).padStart(11)} | ${result.get.toFixed(0).padStart(11)}`);
}
rmSync(dir, { recursive: true, force: true });
