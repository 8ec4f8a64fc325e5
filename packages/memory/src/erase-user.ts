import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { envString, normalizeUserId, optionNames, parseOptions, ThreadwiseConfigError } from "@threadwise/core";
import { isKeyring, type Keyring, loadKeyring, PRINCIPAL_ID_ENV, TENANT_ENV } from "@threadwise/encryption";
import {
  assertStoreShape,
  eraseUserItems,
  expireUserItems,
  namespaceLabel,
  UserItemCodec,
  type UserScope,
  userNamespace,
} from "@threadwise/user-memory";
import { createMemoryPool } from "./pg-pool.js";
import { assertSchemaName } from "./pg-thread-registry.js";
import { assertApply, OPS_TARGET_NAMES, type OpsTarget, openRegistry, threadIdList } from "./prune.js";
import type { ThreadDeleteOutcome } from "./thread-registry.js";
import { postgresUserStore } from "./user-memory-store.js";

/** Options of {@link eraseUser}. */
export interface EraseUserOptions extends OpsTarget {
  /** The user whose memory goes (the `user_id` runs named); checked with core's `normalizeUserId`. */
  userId: string;
  /** The tenant of that user. @default env `THREADWISE_MEMORY_TENANT_ID`, else "default" */
  tenantId?: string;
  /**
   * Also delete the user's threads: every thread the user's items name in their provenance, plus
   * `threadIds`, through the thread registry (checkpoints, blobs, writes; tombstones written).
   * @default false
   */
  threads?: boolean;
  /** More threads of the user to delete with `threads` (ids your application keeps). */
  threadIds?: string[];
  /** The store of user memory; for a PostgreSQL target (`dsn`) its PostgresStore is used when unset. */
  store?: BaseStore;
  /** Keyring the items were sealed with, to read the thread ids from sealed provenance (a path or a `Keyring`). */
  keyring?: string | Keyring;
  /**
   * Agent id the items were sealed for (the stack's `encryption.agentId`, userMemory's `agentId`):
   * sealed items are bound to it, so another id reads them as unreadable. Used with `keyring` only.
   * @default "default"
   */
  agentId?: string;
  /**
   * Principal id the items were sealed for (userMemory's `principalId`). Used with `keyring` only.
   * @default env `THREADWISE_MEMORY_PRINCIPAL_ID`, else "default"
   */
  principalId?: string;
  /** Delete for real; otherwise a dry run that only counts. Irreversible. @default false */
  apply?: boolean;
}

/** What {@link eraseUser} found and did. */
export interface EraseUserReport {
  dryRun: boolean;
  tenantId: string;
  userId: string;
  /** User-memory items found (dry run) or deleted; 0 when no store was given (a SQLite target without `store`). */
  items: number;
  /** Whether a store of user memory was searched. */
  storeSearched: boolean;
  /** Threads named by the items' provenance and `threadIds`, sorted. */
  threadIds: string[];
  /**
   * Items whose provenance could not be read (sealed, and no keyring or another one given), so the
   * threads they name are not in `threadIds`. With `threads` and `apply` any such item refuses the
   * erase before anything is deleted.
   */
  unreadableItems: number;
  /** Per-thread outcome when threads were deleted. */
  threads: ThreadDeleteOutcome[];
}

const ERASE_USER_NAMES = optionNames([
  ...OPS_TARGET_NAMES,
  "userId",
  "tenantId",
  "threads",
  "threadIds",
  "store",
  "keyring",
  "agentId",
  "principalId",
  "apply",
]);
const USER_MEMORY_RETENTION_NAMES = optionNames(["dsn", "schema", "poolMode", "days", "tenantId", "store", "now"]);

function codecOf(options: Pick<EraseUserOptions, "keyring" | "agentId" | "principalId">): UserItemCodec {
  for (const field of ["agentId", "principalId"] as const) {
    const value = options[field];
    if (value !== undefined && (typeof value !== "string" || value.trim() === ""))
      throw new ThreadwiseConfigError(`eraseUser.${field}`, "a non-empty string (the id the items were sealed for)");
  }
  if (options.keyring === undefined) return new UserItemCodec();
  const loaded = isKeyring(options.keyring) ? options.keyring : loadKeyring(options.keyring, process.env, "eraseUser.keyring");
  return new UserItemCodec({
    keyring: loaded,
    agentId: options.agentId ?? "default",
    principalId: options.principalId ?? envString(PRINCIPAL_ID_ENV) ?? "default",
  });
}

/**
 * `owner` names the function whose option is missing or wrong (`eraseUser`, `eraseTenant`,
 * `userMemoryRetention`).
 * @throws ThreadwiseConfigError naming `<owner>.store` when `store` is given and is not a LangGraph
 *   `BaseStore` (was a plain `TypeError`, `store.search is not a function`), or `<owner>.store` when
 *   neither a store nor a DSN is given for a target that needs one.
 */
export async function openStore(
  options: Pick<EraseUserOptions, "store" | "dsn" | "sqlitePath" | "schema" | "poolMode">,
  owner: string,
): Promise<{ store: BaseStore | undefined; close: () => Promise<void> }> {
  if (options.store !== undefined) {
    assertStoreShape(options.store, `${owner}.store`);
    return { store: options.store, close: async () => {} };
  }
  // A SQLite target keeps threads only: user memory beside it lives in the application's own store.
  if (!options.dsn && options.sqlitePath) return { store: undefined, close: async () => {} };
  if (!options.dsn)
    throw new ThreadwiseConfigError(
      `${owner}.store`,
      "give the store of user memory (`store`), or a PostgreSQL DSN for its PostgresStore (--dsn, or env POSTGRES_MEMORY_DSN)",
    );
  const pool = createMemoryPool(options.dsn, { mode: options.poolMode, max: 2 });
  return { store: postgresUserStore(pool, { schema: options.schema ?? "public", dsn: options.dsn, max: 2 }), close: () => pool.end() };
}

/**
 * Erases one user's memory (spec R40): every user-memory item of the user under the tenant and,
 * with `threads`, the user's threads (those the items' provenance names, plus `threadIds`) with
 * their checkpoints, blobs and pending writes, leaving tombstones. A dry run unless `apply`.
 * Thread ids in sealed items are read with `keyring` (and the `agentId`/`principalId` they were
 * sealed for); without it only `threadIds` are known.
 *
 * @throws ThreadwiseUserIdError for a user or tenant id that breaks the thread-id rules;
 *   ThreadwiseThreadIdError naming a bad `threadIds` entry (`eraseUser.threadIds[0]`);
 *   ThreadwiseConfigError naming `eraseUser.threadIds` when it is not an array (a string was read
 *   as its characters, each a thread id); ThreadwiseConfigError naming `eraseUser.agentId` or
 *   `eraseUser.principalId` for an empty id, naming `eraseUser.store` when it is not a
 *   LangGraph `BaseStore` (was a plain `TypeError`), when no store can
 *   be opened or `threads` has no thread target (`dsn`, `sqlitePath` or `registry`), and naming
 *   `eraseUser.keyring` when `threads` and `apply` are set and some items cannot be read (sealed,
 *   without their keyring): erasing them would lose the only record of those threads while the
 *   threads stay; naming `eraseUser.apply` when it is not a boolean (`"no"` erased); ThreadwiseUnknownOptionError for a misspelt option (`aply`: was ignored, so the
 *   call was a dry run). All before anything is deleted.
 * @example
 * await eraseUser({ dsn: process.env.POSTGRES_MEMORY_DSN!, userId: "u-42", threads: true, apply: true });
 */
export async function eraseUser(options: EraseUserOptions): Promise<EraseUserReport> {
  parseOptions("eraseUser", ERASE_USER_NAMES, options);
  assertApply(options.apply, "eraseUser.apply");
  const scope: UserScope = {
    userId: normalizeUserId(options.userId, "eraseUser.userId"),
    tenantId: normalizeUserId(options.tenantId ?? envString(TENANT_ENV) ?? "default", "eraseUser.tenantId"),
  };
  const givenThreadIds = threadIdList(options.threadIds, "eraseUser.threadIds");
  if (options.schema !== undefined) assertSchemaName(options.schema, "eraseUser.schema");
  if (options.threads && !options.dsn && !options.sqlitePath && !options.registry)
    throw new ThreadwiseConfigError(
      "eraseUser.threads",
      "deleting threads needs the thread store: give a DSN, a SQLite file or a registry",
    );
  const codec = codecOf(options);
  const { store, close } = await openStore(options, "eraseUser");
  try {
    let items = 0;
    let named: string[] = [];
    let unreadableItems = 0;
    if (store) {
      const found = await store.search(userNamespace(scope), { limit: 100_000 });
      items = found.length;
      named = found.flatMap((f) => {
        try {
          return [codec.decode(scope, f.key, f.value).threadId];
        } catch {
          unreadableItems += 1;
          return [];
        }
      });
      if (options.apply && options.threads && unreadableItems > 0)
        throw new ThreadwiseConfigError(
          "eraseUser.keyring",
          `${unreadableItems} of the user's ${items} user-memory item(s) cannot be read (sealed: give the keyring they were sealed with, --keyring or THREADWISE_MEMORY_KEYRING), so the threads they name are unknown and would stay; nothing was erased`,
        );
    }
    if (store && options.apply) ({ items, threadIds: named } = await eraseUserItems(store, scope, codec));
    const threadIds = [...new Set([...named, ...givenThreadIds])].sort();
    const threads: ThreadDeleteOutcome[] = [];
    if (options.threads && options.apply && threadIds.length > 0) {
      const { registry, close: closeRegistry } = await openRegistry(options);
      try {
        for (const threadId of threadIds) threads.push(await registry.deleteThread(threadId, { reason: "erase-user" }));
      } finally {
        await closeRegistry();
      }
    }
    return {
      dryRun: !options.apply,
      tenantId: scope.tenantId,
      userId: scope.userId,
      items,
      storeSearched: store !== undefined,
      threadIds,
      unreadableItems,
      threads,
    };
  } finally {
    await close();
  }
}

/** Options of {@link userMemoryRetention}. */
export interface UserMemoryRetentionOptions extends Pick<OpsTarget, "dsn" | "schema" | "poolMode"> {
  /** Items last written at least this many days ago are deleted (days, a whole number >= 1). */
  days: number;
  /** Only this tenant's users. @default every tenant */
  tenantId?: string;
  store?: BaseStore;
  /** Clock, for tests. */
  now?: () => Date;
}

/**
 * Retention of user memory by age (spec R40): deletes every item last written `days` or more days
 * ago, by the store's own `updatedAt` (no keyring needed). Returns how many.
 * @throws ThreadwiseConfigError when `days` is not a whole number >= 1, `now()` is not a valid Date
 *   (`userMemoryRetention.now`; was reported as `expireUserItems.before`), `store` is not a LangGraph
 *   `BaseStore` (`userMemoryRetention.store`) or no store can be opened;
 *   ThreadwiseUserIdError naming `userMemoryRetention.tenantId`, before the store is opened;
 *   ThreadwiseUnknownOptionError for a misspelt option (`tenantID`), which was ignored (every
 *   tenant's users expired).
 */
export async function userMemoryRetention(options: UserMemoryRetentionOptions): Promise<{ deleted: number; before: Date }> {
  parseOptions("userMemoryRetention", USER_MEMORY_RETENTION_NAMES, options);
  if (!(Number.isSafeInteger(options.days) && options.days >= 1))
    throw new ThreadwiseConfigError("userMemoryRetention.days", `expected a whole number of days >= 1, got ${String(options.days)}`);
  const now = (options.now ?? (() => new Date()))();
  if (!(now instanceof Date) || Number.isNaN(now.getTime()))
    throw new ThreadwiseConfigError("userMemoryRetention.now", "expected a clock giving a valid Date: nothing was deleted");
  const before = new Date(now.getTime() - options.days * 86_400_000);
  // Before the store opens (a pool on `dsn`).
  const tenantLabel =
    options.tenantId === undefined ? undefined : namespaceLabel(normalizeUserId(options.tenantId, "userMemoryRetention.tenantId"));
  const { store, close } = await openStore(options, "userMemoryRetention");
  if (!store) throw new ThreadwiseConfigError("userMemoryRetention.store", "give the store of user memory, or a PostgreSQL DSN");
  try {
    return { deleted: await expireUserItems(store, before, tenantLabel ? { tenantLabel } : {}), before };
  } finally {
    await close();
  }
}
