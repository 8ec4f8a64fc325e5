import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { normalizeUserId, optionNames, parseOptions, ThreadwiseConfigError } from "@threadwise/core";
import { assertStoreShape, eraseTenantItems, namespaceLabel } from "@threadwise/user-memory";
import { openStore } from "./erase-user.js";
import { assertSchemaName } from "./pg-thread-registry.js";
import { assertApply, OPS_TARGET_NAMES, type OpsTarget, openRegistry, threadIdList } from "./prune.js";
import type { ThreadRegistry, ThreadRowCounts } from "./thread-registry.js";

/** Threads, archive rows or user-memory items handled per batch by {@link eraseTenant}. */
export const DEFAULT_ERASE_BATCH_SIZE = 100;

const ERASE_TENANT_NAMES = optionNames([...OPS_TARGET_NAMES, "tenantId", "threadIds", "store", "batchSize", "apply", "onBatch"]);

/** Options of {@link eraseTenant}. */
export interface EraseTenantOptions extends OpsTarget {
  /** The tenant whose memory goes (the stacks' `encryption.tenantId` / env `THREADWISE_MEMORY_TENANT_ID`, userMemory's `tenant_id`). */
  tenantId: string;
  /**
   * More threads of the tenant, deleted as given: threads written before the tenant was recorded
   * (this release) and holding no archived messages, which no store can tell the tenant of
   * (the report counts them as `unattributedThreads`).
   */
  threadIds?: string[];
  /** The store of user memory; for a PostgreSQL target (`dsn`) its PostgresStore is used when unset. */
  store?: BaseStore;
  /** Threads (each deleted in its own transaction), archive rows or user-memory items per batch, a whole number 1..10000. @default 100 */
  batchSize?: number;
  /** Delete for real; otherwise a dry run that only counts. Irreversible. @default false */
  apply?: boolean;
  /**
   * Called after each batch with the report so far; a throw stops the erase there (what was
   * deleted stays deleted; run again to finish). For progress bars, and for tests of a crash
   * between batches.
   */
  onBatch?: (progress: EraseTenantReport) => void | Promise<void>;
}

/** What {@link eraseTenant} found (dry run) or deleted, by kind. */
export interface EraseTenantReport {
  dryRun: boolean;
  tenantId: string;
  /** Threads of the tenant found or deleted (checkpoints, blobs, pending writes, archived messages; tombstones written). */
  threads: number;
  /** Rows of those threads (`archived`: their archived messages, every tenant's). */
  rows: ThreadRowCounts;
  /** Archived messages of the tenant on threads that are not its (another tenant's thread, a tombstone). */
  strayArchived: number;
  /** User-memory items of the tenant (every user); 0 when no store was searched. */
  userMemoryItems: number;
  /** Whether a store of user memory was searched (a SQLite target without `store` has none). */
  storeSearched: boolean;
  /**
   * Live threads no tenant can be told for (written before the tenant was recorded, no archived
   * messages), of any tenant: left alone; pass those of this tenant as `threadIds`.
   */
  unattributedThreads: number;
  /** Batches done (0 for a dry run). */
  batches: number;
}

const emptyRows = (): ThreadRowCounts => ({ checkpoints: 0, blobs: 0, writes: 0, archived: 0 });

function addRows(into: ThreadRowCounts, rows: ThreadRowCounts): void {
  into.checkpoints += rows.checkpoints;
  into.blobs += rows.blobs;
  into.writes += rows.writes;
  into.archived += rows.archived;
}

/** Counts what {@link eraseTenant} would delete, page by page. */
async function countTenant(
  registry: ThreadRegistry,
  tenantId: string,
  threadIds: readonly string[],
  batchSize: number,
  report: EraseTenantReport,
) {
  const seen = new Set<string>();
  for (let after: string | undefined; ; ) {
    const page = await registry.tenantThreads(tenantId, batchSize, after);
    for (const info of page) {
      seen.add(info.threadId);
      addRows(report.rows, info);
    }
    if (page.length < batchSize) break;
    after = page.at(-1)?.threadId;
  }
  for (const threadId of threadIds) {
    const info = seen.has(threadId) ? undefined : await registry.describe(threadId);
    if (!info) continue;
    seen.add(threadId);
    addRows(report.rows, info);
  }
  report.threads = seen.size;
  report.strayArchived = await registry.deleteTenantArchive(tenantId, 0);
}

/**
 * Erases everything threadwise stored for one tenant (offboarding; spec R24, R40), in batches,
 * never in one transaction for the tenant:
 *
 * 1. its threads, `batchSize` at a time, each through `ThreadRegistry.deleteThread` in its own
 *    transaction under the thread's lock (checkpoints, blobs, pending writes, archived messages,
 *    operation ids; a tombstone is left, so the thread id cannot be written again, R24). A
 *    thread is the tenant's when the tenant was recorded with its first root checkpoint (the
 *    saver's tenant: `encryption.tenantId`, env `THREADWISE_MEMORY_TENANT_ID`, else "default"),
 *    or, for a thread written before that, when it holds archived messages of the tenant; plus
 *    `threadIds`;
 * 2. the tenant's archived messages left on threads that are not its;
 * 3. its user-memory items, every user (`store`, or for `dsn` the PostgresStore of the memory
 *    database), `batchSize` per store batch.
 *
 * Threads come before user memory so that nothing that names a thread is gone while the thread
 * stays. Keyring material: none is per tenant (data keys are derived per tenant from the root
 * keys, R27), so nothing is deleted there; the erased records are gone, not only unreadable.
 * Resumable and idempotent: each step lists what is left, so a run stopped anywhere (a crash,
 * a throw from `onBatch`) and run again deletes the rest, and a finished erase run again finds
 * nothing. Other tenants' threads, archive rows and items are never touched. A dry run unless `apply`.
 *
 * @throws ThreadwiseUserIdError for a tenant id that breaks the id rules; ThreadwiseThreadIdError
 *   naming a bad `threadIds` entry (`eraseTenant.threadIds[1]`); ThreadwiseConfigError naming
 *   `eraseTenant.threadIds` when it is not an array (a string threw a plain `TypeError`), `eraseTenant.batchSize`, or
 *   `eraseTenant.schema`, `eraseTenant.apply` (not a boolean: `"false"` erased), or `target` when no store is named, `eraseTenant.store` when it is not a LangGraph `BaseStore` (was a
 *   plain `TypeError`); ThreadwiseUnknownOptionError for a
 *   misspelt option (`aply`: was ignored, so the call was a dry run; `threadIDs`: those threads
 *   stayed). All before anything is deleted.
 * @example
 * await eraseTenant({ dsn: process.env.POSTGRES_MEMORY_DSN!, tenantId: "acme" });               // dry run: counts
 * await eraseTenant({ dsn: process.env.POSTGRES_MEMORY_DSN!, tenantId: "acme", apply: true });  // irreversible
 */
export async function eraseTenant(options: EraseTenantOptions): Promise<EraseTenantReport> {
  parseOptions("eraseTenant", ERASE_TENANT_NAMES, options);
  const tenantId = normalizeUserId(options.tenantId, "eraseTenant.tenantId");
  const threadIds = threadIdList(options.threadIds, "eraseTenant.threadIds").sort();
  const batchSize = options.batchSize ?? DEFAULT_ERASE_BATCH_SIZE;
  if (!(Number.isSafeInteger(batchSize) && batchSize >= 1 && batchSize <= 10_000))
    throw new ThreadwiseConfigError("eraseTenant.batchSize", `expected a whole number from 1 to 10000, got ${String(options.batchSize)}`);
  if (options.schema !== undefined) assertSchemaName(options.schema, "eraseTenant.schema");
  assertApply(options.apply, "eraseTenant.apply");
  // Before the thread store opens: a wrong store is the caller's option, not a missing file.
  if (options.store !== undefined) assertStoreShape(options.store, "eraseTenant.store");
  const { registry, close: closeRegistry } = await openRegistry(options);
  try {
    const { store, close: closeStore } = await openStore(options, "eraseTenant");
    try {
      const report: EraseTenantReport = {
        dryRun: !options.apply,
        tenantId,
        threads: 0,
        rows: emptyRows(),
        strayArchived: 0,
        userMemoryItems: 0,
        storeSearched: store !== undefined,
        unattributedThreads: 0,
        batches: 0,
      };
      if (!options.apply) {
        await countTenant(registry, tenantId, threadIds, batchSize, report);
        if (store) report.userMemoryItems = await eraseTenantItems(store, namespaceLabel(tenantId));
        report.unattributedThreads = await registry.unattributedThreads();
        return report;
      }
      const batchDone = async () => {
        report.batches += 1;
        await options.onBatch?.(report);
      };
      // 1. Threads: each batch lists what is left (deleted threads are tombstones, no longer listed).
      for (;;) {
        const page = await registry.tenantThreads(tenantId, batchSize);
        if (page.length === 0) break;
        let deleted = 0;
        for (const { threadId } of page) {
          const outcome = await registry.deleteThread(threadId, { reason: "erase-tenant" });
          if (outcome.status !== "deleted") continue;
          deleted += 1;
          report.threads += 1;
          addRows(report.rows, outcome.counts);
        }
        await batchDone();
        // Listed, none deleted: another run deleted them meanwhile (tombstones, not listed again); never loop on it.
        if (deleted === 0) break;
      }
      for (let i = 0; i < threadIds.length; i += batchSize) {
        for (const threadId of threadIds.slice(i, i + batchSize)) {
          const outcome = await registry.deleteThread(threadId, { reason: "erase-tenant" });
          if (outcome.status !== "deleted") continue;
          report.threads += 1;
          addRows(report.rows, outcome.counts);
        }
        await batchDone();
      }
      // 2. The tenant's archived messages on threads that are not its.
      for (
        let n = await registry.deleteTenantArchive(tenantId, batchSize);
        n > 0;
        n = await registry.deleteTenantArchive(tenantId, batchSize)
      ) {
        report.strayArchived += n;
        await batchDone();
      }
      // 3. User memory, last: its items name threads, which are gone by now.
      if (store) {
        let before = 0;
        report.userMemoryItems = await eraseTenantItems(store, namespaceLabel(tenantId), {
          apply: true,
          batchSize,
          onBatch: async (deleted) => {
            report.userMemoryItems = deleted;
            if (deleted > before) await batchDone();
            before = deleted;
          },
        });
      }
      report.unattributedThreads = await registry.unattributedThreads();
      return report;
    } finally {
      await closeStore();
    }
  } finally {
    await closeRegistry();
  }
}
