/**
 * `@threadwise/encryption`: what a checkpointer stores becomes AES-256-GCM ciphertext, with keys
 * from a local keyring file (spec R26-R28).
 *
 * A development keyring is created in a temp directory with `createKeyring` (mode 0600, added to a
 * `.gitignore`). The first turns of a recorded tau-bench airline conversation (a customer gives
 * her user id; tools return her profile, address and payment methods) run twice through
 * `createAgent`: once on a plain `SqliteSaver`, once on the same saver wrapped by
 * `encryptCheckpointer`. The example then searches the raw bytes of both database files (WAL
 * included) for the user id and the street address: found in the plain file, absent from the
 * encrypted one, while `agent.graph.getState()` still reads the thread back.
 *
 * Offline by default (the recorded assistant turns and tool results are replayed). With
 * `OPENAI_API_KEY` (or `OPENAI_BASE_URL`) a live `ChatOpenAI` answers the same user turns.
 *
 *   pnpm tsx examples/encryption.ts
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { messageText } from "@threadwise/core";
import { replayModel } from "@threadwise/core/testing";
import { createKeyring, encryptCheckpointer } from "@threadwise/encryption";
import { createAgent, HumanMessage } from "langchain";
import { exampleModel } from "./support/live-model.js";
import { loadAirlineRuns, replayScript, replayTools } from "./support/tau-replay.js";
import { exampleTempDir } from "./support/temp-dir.js";

const script = replayScript(loadAirlineRuns()[0] as Parameters<typeof replayScript>[0]);
const turns = script.turns.slice(0, 4);
const SECRETS = ["mia_li_3668", "975 Sunset Drive"];
const dir = exampleTempDir("encryption");
const keyring = createKeyring(join(dir, "keyring.json"));
console.log(
  `keyring ${keyring.path}: kid ${keyring.kid}, mode ${(statSync(keyring.path).mode & 0o777).toString(8)}, listed in ${keyring.gitignore}\n`,
);

async function converse(checkpointer: BaseCheckpointSaver, threadId: string) {
  const { model } = await exampleModel(() => replayModel(turns.flatMap((t) => t.assistant)));
  const agent = createAgent({ model, tools: replayTools(script), systemPrompt: script.systemPrompt, checkpointer });
  const config = { configurable: { thread_id: threadId }, recursionLimit: 50 };
  for (const turn of turns) await agent.invoke({ messages: [new HumanMessage(turn.user)] }, config);
  return ((await agent.graph.getState(config)).values as { messages: BaseMessage[] }).messages;
}

/** Which secrets occur in the raw bytes of the database file and its WAL. */
function secretsOnDisk(path: string): string[] {
  const bytes = [path, `${path}-wal`].filter(existsSync).map((p) => readFileSync(p).toString("latin1"));
  return SECRETS.filter((secret) => bytes.some((b) => b.includes(secret)));
}

const plainPath = join(dir, "plain.sqlite");
const plain = await converse(SqliteSaver.fromConnString(plainPath), "customer-mia");
const encryptedPath = join(dir, "encrypted.sqlite");
const encrypted = await converse(
  encryptCheckpointer(SqliteSaver.fromConnString(encryptedPath), { keyring: keyring.path, agentId: "airline-support" }),
  "customer-mia",
);

const readsBack = (messages: BaseMessage[]) => SECRETS.filter((s) => messages.some((m) => messageText(m).includes(s)));
console.log(`plain SqliteSaver:     ${plain.length} messages; secrets on disk: [${secretsOnDisk(plainPath).join(", ")}]`);
console.log(`encryptCheckpointer:   ${encrypted.length} messages; secrets on disk: [${secretsOnDisk(encryptedPath).join(", ")}]`);
console.log(`getState() on the encrypted thread reads back: [${readsBack(encrypted).join(", ")}]`);
