// Type tests (checked by `tsc`): the wrapper keeps the inner saver's type and is a checkpointer.
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { MemorySaver } from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createAgent } from "langchain";
import { expectTypeOf } from "vitest";
import { type EncryptedCheckpointSaver, encryptCheckpointer } from "./encrypted-checkpointer.js";
import type { ReencryptOptions } from "./reencrypt.js";

declare const model: Parameters<typeof createAgent>[0]["model"];

const sqlite = encryptCheckpointer(SqliteSaver.fromConnString(":memory:"));
expectTypeOf(sqlite).toEqualTypeOf<EncryptedCheckpointSaver<SqliteSaver>>();
expectTypeOf(sqlite.inner.db).not.toBeAny();
expectTypeOf(sqlite).toExtend<BaseCheckpointSaver>();
expectTypeOf(encryptCheckpointer(new MemorySaver()).inner).toEqualTypeOf<MemorySaver>();
createAgent({ model, checkpointer: sqlite });

expectTypeOf<ReencryptOptions["saver"]>().toEqualTypeOf<EncryptedCheckpointSaver>();
// @ts-expect-error reencrypt needs the encrypted wrapper, not a plain saver
const plain: ReencryptOptions["saver"] = new MemorySaver();
void plain;
