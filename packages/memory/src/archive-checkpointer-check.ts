import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { runCheckpointerOf, saverInChain, ThreadwiseConfigError } from "@threadwise/core";
import { createMiddleware } from "langchain";
import { ThreadwiseSaver } from "./threadwise-saver.js";

/**
 * The ThreadwiseSaver a checkpointer is or wraps: itself, or the first one down the chain of
 * `inner` savers (core's `saverInChain`: `encryptCheckpointer`'s `EncryptedCheckpointSaver` and
 * ThreadwiseSaver itself name what they wrap `inner`; a `Proxy` of a ThreadwiseSaver is one).
 * `undefined` when the chain ends without one.
 */
export function threadwiseSaverOf(checkpointer: unknown): ThreadwiseSaver | undefined {
  return saverInChain(checkpointer, (saver): saver is ThreadwiseSaver => saver instanceof ThreadwiseSaver);
}

/** The SQLite file a saver chain stores to (better-sqlite3's `db.name`, resolved), else the connection object for an in-memory database. */
function sqliteFileOf(saver: ThreadwiseSaver): unknown {
  const found = saverInChain(
    saver.inner,
    (inner): inner is { db: { name?: unknown; memory?: unknown } } =>
      typeof (inner as { db?: unknown }).db === "object" && (inner as { db?: unknown }).db !== null,
  );
  if (found === undefined) return undefined;
  const db = found.db;
  if (typeof db.name !== "string" || db.name === "" || db.name === ":memory:" || db.memory === true) return db;
  try {
    return realpathSync(db.name);
  } catch {
    return resolve(db.name);
  }
}

/**
 * Why the saver a run stores to provably keeps its threads apart from `stack`'s archive, or
 * `undefined` when it reaches it (or nothing can be proved):
 * - the stack's saver, or a wrapper of it: reaches it;
 * - no ThreadwiseSaver at all down its `inner` chain (MemorySaver, SqliteSaver, PostgresSaver, a
 *   wrapper of one): refused;
 * - another ThreadwiseSaver (a replica opened on the same store): reaches it when both store to
 *   the same place: the same registry, the same SQLite file (real path), or both on PostgreSQL
 *   (not compared: a DSN does not prove two databases apart, PgBouncer and a direct connection
 *   name one database differently); refused for another kind of store, another SQLite file, or
 *   another in-memory store (each in-memory saver has its own).
 */
export function archiveSplitReason(used: unknown, stack: ThreadwiseSaver): string | undefined {
  const found = threadwiseSaverOf(used);
  if (!found)
    return `it stores to ${describe(used)}, which does not wrap a ThreadwiseSaver (a wrapper must name the saver it wraps \`inner\`, as encryptCheckpointer's does)`;
  if (found === stack || found.registry === stack.registry) return undefined;
  const kind = found.registry.kind;
  if (kind !== stack.registry.kind) return `it stores to a ${kind} ThreadwiseSaver, the stack's archive is on ${stack.registry.kind}`;
  if (kind === "postgres") return undefined;
  if (kind === "sqlite") {
    const a = sqliteFileOf(found);
    const b = sqliteFileOf(stack);
    if (a !== undefined && a === b) return undefined;
    return `it stores to the SQLite ${typeof a === "string" ? `file ${a}` : "database"}, the stack's archive is in ${typeof b === "string" ? `file ${b}` : "another database"}`;
  }
  return "it stores to another in-memory ThreadwiseSaver than the stack's (each keeps its own archive)";
}

/**
 * What to add to the refusal when the run is a task of a parent graph (a non-empty
 * `configurable.checkpoint_ns`): LangGraph runs a graph invoked inside a node on the checkpointer
 * the parent lends it through the config, not on the one it was compiled with (so an agent given
 * the stack's checkpointer, invoked from a node of a graph compiled with another, stores there;
 * https://github.com/langchain-ai/langgraph/issues/8038 has the same in Python). "" otherwise.
 */
function lentHint(runtime: unknown): string {
  const ns = (runtime as { configurable?: Record<string, unknown> } | undefined)?.configurable?.checkpoint_ns;
  if (typeof ns !== "string" || ns === "") return "";
  return ` It runs inside a node of a parent graph (checkpoint_ns "${ns}"), and LangGraph runs a graph invoked there on the checkpointer the parent lends it, not on its own: add the agent to the parent as a node, or compile the parent with the stack's checkpointer.`;
}

function describe(saver: unknown): string {
  if (typeof saver !== "object" || saver === null) return String(saver);
  return (saver as { constructor?: { name?: string } }).constructor?.name || "a checkpointer";
}

/**
 * Refuses a run whose checkpointer provably does not reach the archive of `checkpointer` (the
 * stack's ThreadwiseSaver), before the archive is written: with `archive: true`, messages leave
 * the checkpoint for the archive of the stack's saver, so an agent given another checkpointer
 * after the spread (`createAgent({ ...stack, checkpointer: new MemorySaver() })`) would keep its
 * thread in one store and the messages archived from it in another, where no read, fork check or
 * deletion of that thread finds them. What "reaches" means is {@link archiveSplitReason}: the
 * stack's saver, `encryptCheckpointer(stack.checkpointer)` and other wrappers naming it `inner`,
 * and a replica (another ThreadwiseSaver on the same store) pass. Checked at each model call
 * (`wrapModelCall`, so resumed runs too) with one `WeakMap` lookup per checkpointer after its
 * first; a run whose config carries no checkpointer LangGraph's way (`configurable.__pregel_checkpointer`)
 * passes, since nothing can be proved. `memoryMiddleware` puts it before `messageArchive`.
 *
 * @throws ThreadwiseConfigError naming `memory.checkpointer` (from the model call, wrapped in
 *   LangChain's MiddlewareError: use `ThreadwiseConfigError.find`).
 */
export function archiveCheckpointerCheck(checkpointer: ThreadwiseSaver) {
  // By checkpointer object: its verdict reads its class and the savers it wraps, fixed when it is made.
  const verdicts = new WeakMap<object, string | undefined>();
  return createMiddleware({
    name: "threadwise/archive-checkpointer",
    wrapModelCall: (request, handler) => {
      const used = runCheckpointerOf(request.runtime);
      if (typeof used === "object" && used !== null && used !== checkpointer) {
        let reason = verdicts.get(used);
        if (!verdicts.has(used)) {
          reason = archiveSplitReason(used, checkpointer);
          verdicts.set(used, reason);
        }
        if (reason !== undefined)
          throw new ThreadwiseConfigError(
            "memory.checkpointer",
            `the agent runs on another checkpointer than the stack's, and archive is on: ${reason}. Its thread and the messages archived from it would be kept apart.${lentHint(request.runtime)} Pass the stack's (createAgent({ model, ...stack }) with no checkpointer after the spread, checkpointer: stack.checkpointer, or a wrapper of it such as encryptCheckpointer(stack.checkpointer)), or turn archive off`,
          );
      }
      return handler(request);
    },
  });
}
