import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { normalizeUserId, parseOptions, ThreadwiseConfigError } from "@threadwise/core";
import { sealedKid } from "@threadwise/encryption";
import { z } from "zod/v4";
import { type ConditionalWrite, conditionalWriteOf } from "./conditional-writes.js";
import { assertStoreShape } from "./store-shape.js";
import { UserItemCodec } from "./user-item-codec.js";
import type { UserItem } from "./user-items.js";
import { idOfLabel, isUserNamespace, NAMESPACE_ROOT, type UserScope, userNamespace } from "./user-scope.js";

/** Items read per store search (a page). */
const PAGE = 500;

/**
 * Every item of `scope`'s memory, read page by page from the user's namespace and decoded. A
 * search result whose namespace is not exactly the user's is never used (defence against a store
 * whose prefix search matches more than the prefix).
 *
 * @param limit Most items read (items); the bound of a user's memory, plus room for one turn.
 * @throws the store's errors; ThreadwiseDecryptionError or ThreadwiseUserMemoryItemError for a
 *   value that cannot be opened or belongs to someone else (the read fails whole).
 */
export async function readUserItems(store: BaseStore, scope: UserScope, codec: UserItemCodec, limit: number): Promise<UserItem[]> {
  const namespace = userNamespace(scope);
  const items: UserItem[] = [];
  for (let offset = 0; offset < limit; offset += PAGE) {
    const page = await store.search(namespace, { limit: Math.min(PAGE, limit - offset), offset });
    for (const found of page) if (isUserNamespace(found.namespace, scope)) items.push(codec.decode(scope, found.key, found.value));
    if (page.length < Math.min(PAGE, limit - offset)) break;
  }
  return items;
}

/**
 * Writes `puts` and deletes `deletes` in `scope`'s namespace. Plain `put`/`delete` calls, issued
 * together: inside a run LangGraph hands nodes an `AsyncBatchedStore`, which batches them itself
 * (and has no `batch` method of its own).
 */
export async function writeUserItems(
  store: BaseStore,
  scope: UserScope,
  codec: UserItemCodec,
  puts: readonly UserItem[],
  deletes: readonly string[],
): Promise<void> {
  const namespace = userNamespace(scope);
  if (puts.length === 0 && deletes.length === 0) return;
  await Promise.all([
    ...puts.map((item) => store.put(namespace, item.key, codec.encode(scope, item) as unknown as Record<string, unknown>)),
    ...deletes.map((key) => store.delete(namespace, key)),
  ]);
}

/** The ids of a user scope, checked by core's rules before any store call. */
function assertScope(scope: UserScope, field: string): void {
  if (typeof scope !== "object" || scope === null)
    throw new ThreadwiseConfigError(field, `expected { tenantId, userId }, got ${scope === null ? "null" : typeof scope}`);
  normalizeUserId(scope.tenantId, `${field}.tenantId`);
  normalizeUserId(scope.userId, `${field}.userId`);
}

/**
 * A tenant's namespace label (`namespaceLabel(tenantId)`): a non-empty string that reads back as
 * an id. An empty one would widen a tenant's prefix to every tenant (`expireUserItems` deleted
 * every tenant's items with `tenantLabel: ""`); a raw id that needs escaping (`a.b`) matches no
 * namespace, so the call would find nothing.
 */
function assertTenantLabel(label: unknown, field: string): void {
  if (typeof label !== "string" || label === "" || idOfLabel(label) === undefined)
    throw new ThreadwiseConfigError(
      field,
      `expected a tenant's namespace label, namespaceLabel(tenantId) (letters, digits, "-" and ~XX escapes), got ${typeof label === "string" ? JSON.stringify(label) : typeof label}: nothing was read or deleted`,
    );
}

const tenantLabelOptionsSchema = z.strictObject({ tenantLabel: z.string().optional() });

const eraseTenantItemsOptionsSchema = z.strictObject({
  batchSize: z.number().int().min(1).optional(),
  apply: z.boolean().optional(),
  onBatch: z.custom<EraseTenantItemsOptions["onBatch"]>((value) => typeof value === "function").optional(),
});

/** What {@link eraseUserItems} removed. */
export interface EraseUserItemsResult {
  /** Items deleted. */
  items: number;
  /** Thread ids named by the deleted items' provenance (when they could be read), sorted. */
  threadIds: string[];
}

/**
 * Deletes every item of `scope`'s memory (spec R40). Thread ids are read from the items'
 * provenance when `codec` can open them; an item that cannot be opened (another keyring) is
 * deleted all the same and contributes no thread id.
 * @throws ThreadwiseUserIdError naming `eraseUserItems.scope.userId` (or `.tenantId`) for an id
 *   that breaks the user-id rules (not a string, empty, ...), before anything is read;
 *   ThreadwiseConfigError naming `eraseUserItems.store` when `store` is not a LangGraph `BaseStore`
 *   (was a plain `TypeError`, `store.search is not a function`).
 */
export async function eraseUserItems(store: BaseStore, scope: UserScope, codec: UserItemCodec): Promise<EraseUserItemsResult> {
  assertStoreShape(store, "eraseUserItems.store");
  assertScope(scope, "eraseUserItems.scope");
  const namespace = userNamespace(scope);
  const threadIds = new Set<string>();
  let items = 0;
  for (;;) {
    const page = (await store.search(namespace, { limit: PAGE })).filter((found) => isUserNamespace(found.namespace, scope));
    if (page.length === 0) break;
    for (const found of page) {
      try {
        threadIds.add(codec.decode(scope, found.key, found.value).threadId);
      } catch {
        // Unreadable here: still the user's (by namespace), so still erased.
      }
    }
    await Promise.all(page.map((found) => store.delete(namespace, found.key)));
    items += page.length;
  }
  return { items, threadIds: [...threadIds].sort() };
}

/** A namespace as one string, for comparing listings. */
const namespaceKey = (namespace: readonly string[]) => JSON.stringify(namespace);

/**
 * Visits every namespace under `prefix` that `store.listNamespaces` lists, each once, in the
 * store's order, while `visit` deletes items. The listing is paged (`PAGE` namespaces) by offset,
 * and a namespace `visit` empties may leave it (PostgresStore lists only namespaces holding items;
 * InMemoryStore keeps listing them): so after each page the same offset is listed again, and only
 * the page's namespaces still listed there move the offset on. Both stores list in sorted order,
 * so the survivors come first from that offset and nothing after them is skipped.
 */
export async function forEachNamespace(
  store: BaseStore,
  prefix: readonly string[],
  visit: (namespace: string[]) => Promise<void>,
): Promise<void> {
  let offset = 0;
  for (;;) {
    const page = await store.listNamespaces({ prefix: [...prefix], limit: PAGE, offset });
    for (const namespace of page) await visit(namespace);
    if (page.length < PAGE) return;
    const visited = new Set(page.map(namespaceKey));
    const again = await store.listNamespaces({ prefix: [...prefix], limit: PAGE, offset });
    let kept = 0;
    while (kept < again.length && visited.has(namespaceKey(again[kept] as string[]))) kept += 1;
    offset += kept;
  }
}

/** `true` when `namespace` is a user's item namespace under `prefix` (`[...NAMESPACE_ROOT, tenant, user, "items"]`). */
function isItemNamespaceUnder(namespace: readonly string[], prefix: readonly string[]): boolean {
  return namespace.length === NAMESPACE_ROOT.length + 3 && prefix.every((label, i) => namespace[i] === label);
}

/**
 * Deletes the user-memory items last written before `before`, in every user's namespace (or one
 * tenant's), by the store's own `updatedAt` (readable without the keyring). Every namespace is
 * visited, however many there are (see {@link forEachNamespace}). Returns how many.
 * @throws ThreadwiseConfigError naming `expireUserItems.before` for a value that is not a valid
 *   `Date` (an ISO string or `new Date(NaN)` deleted nothing and returned 0), or
 *   `expireUserItems.tenantLabel` for a label that is not one (an empty one deleted every
 *   tenant's items); an unknown option (`tenant`) throws `ThreadwiseUnknownOptionError` (it was
 *   ignored, and every tenant's items expired); ThreadwiseConfigError naming `expireUserItems.store`
 *   when `store` is not a LangGraph `BaseStore` (was a plain `TypeError`). Nothing is deleted then.
 */
export async function expireUserItems(store: BaseStore, before: Date, options: { tenantLabel?: string } = {}): Promise<number> {
  assertStoreShape(store, "expireUserItems.store");
  if (!(before instanceof Date) || Number.isNaN(before.getTime()))
    throw new ThreadwiseConfigError(
      "expireUserItems.before",
      `expected a valid Date (items last written before it are deleted), got ${before instanceof Date ? "an invalid Date" : typeof before}: nothing was deleted`,
    );
  const { tenantLabel } = parseOptions("expireUserItems", tenantLabelOptionsSchema, options);
  if (tenantLabel !== undefined) assertTenantLabel(tenantLabel, "expireUserItems.tenantLabel");
  const prefix = tenantLabel ? [...NAMESPACE_ROOT, tenantLabel] : [...NAMESPACE_ROOT];
  let deleted = 0;
  await forEachNamespace(store, prefix, async (namespace) => {
    if (!isItemNamespaceUnder(namespace, prefix)) return;
    for (let from = 0; ; from += PAGE) {
      const page = await store.search(namespace, { limit: PAGE, offset: from });
      const old = page.filter((found) => new Date(found.updatedAt) < before);
      // One store batch per page (one transaction on PostgresStore), not a call per item.
      if (old.length > 0) await store.batch(old.map((found) => ({ namespace, key: found.key, value: null })));
      deleted += old.length;
      if (page.length < PAGE) break;
      // The deleted ones left the listing: what followed them moved up by as many.
      from -= old.length;
    }
  });
  return deleted;
}

/** Options of {@link eraseTenantItems}. */
export interface EraseTenantItemsOptions {
  /** Items deleted per store batch (one `batch` call), a whole number >= 1. @default 500 */
  batchSize?: number;
  /** Delete; otherwise only count. @default false */
  apply?: boolean;
  /** Called after each deleted batch with the items deleted so far; a throw stops the erase there (what is deleted stays deleted). */
  onBatch?: (deleted: number) => void | Promise<void>;
}

/**
 * Every user-memory item of one tenant (namespace `["threadwise", "user-memory", "v1", tenantLabel, *, "items"]`,
 * every user), counted or, with `apply`, deleted batch by batch: each batch one `store.batch`
 * of at most `batchSize` deletions, never one transaction for the tenant. Readable without the
 * keyring (nothing is decoded). Idempotent: run again after a failure, it deletes what is left.
 * @returns items counted, or deleted.
 * @throws ThreadwiseConfigError naming `eraseTenantItems.tenantLabel` for a label that is not one
 *   (not a string, empty, or a raw id such as `a.b`: pass `namespaceLabel(tenantId)`), or the
 *   option (`eraseTenantItems.batchSize` for 0, a negative number or NaN); an unknown option
 *   (`aply`) throws `ThreadwiseUnknownOptionError`: before, it was ignored, and the call counted
 *   instead of erasing; `eraseTenantItems.store` when `store` is not a LangGraph `BaseStore` (was a
 *   plain `TypeError`).
 */
export async function eraseTenantItems(store: BaseStore, tenantLabel: string, options: EraseTenantItemsOptions = {}): Promise<number> {
  assertStoreShape(store, "eraseTenantItems.store");
  assertTenantLabel(tenantLabel, "eraseTenantItems.tenantLabel");
  options = parseOptions("eraseTenantItems", eraseTenantItemsOptionsSchema, options);
  const batchSize = options.batchSize ?? PAGE;
  const prefix = [...NAMESPACE_ROOT, tenantLabel];
  const ofTenant = (namespace: readonly string[]) => isItemNamespaceUnder(namespace, prefix);
  let total = 0;
  if (!options.apply) {
    await forEachNamespace(store, prefix, async (namespace) => {
      if (!ofTenant(namespace)) return;
      for (let from = 0; ; from += PAGE) {
        const page = await store.search(namespace, { limit: PAGE, offset: from });
        total += page.filter((found) => ofTenant(found.namespace)).length;
        if (page.length < PAGE) break;
      }
    });
    return total;
  }
  // Passes over every namespace until one deletes nothing (items written meanwhile go too).
  for (;;) {
    let deletedThisPass = 0;
    await forEachNamespace(store, prefix, async (namespace) => {
      if (!ofTenant(namespace)) return;
      for (;;) {
        const page = (await store.search(namespace, { limit: batchSize })).filter((found) => ofTenant(found.namespace));
        if (page.length === 0) break;
        await store.batch(page.map((found) => ({ namespace: found.namespace, key: found.key, value: null })));
        total += page.length;
        deletedThisPass += page.length;
        await options.onBatch?.(total);
      }
    });
    if (deletedThisPass === 0) return total;
  }
}

/** What {@link reencryptUserItems} found and did. */
export interface ReencryptUserItemsResult {
  /** Sealed items per kid before the run (a dry run's answer: retire a kid only when it has none). */
  byKid: Record<string, number>;
  /** Items sealed again with the active kid (0 in a dry run). */
  resealed: number;
  /**
   * Items found stored in plaintext (written with no keyring), or in a namespace whose tenant or
   * user label does not decode. Without `encryptPlaintext` all are left as they are (reads with a
   * keyring refuse them: `plaintext-record`); with it, those it sealed are also in `sealedPlaintext`.
   */
  plaintext: number;
  /**
   * Plaintext items sealed with the active kid by `encryptPlaintext` (0 in a dry run and without
   * the option). `plaintext - sealedPlaintext` were left in plaintext: in a dry run all, otherwise
   * those not in a decodable user namespace or not a well-formed item of its owner.
   */
  sealedPlaintext: number;
  /**
   * Items sealed with a kid other than the active one that did not open with this codec (another
   * keyring, `agentId` or `principalId`, or tampered), counted in `byKid` too; a dry run opens them
   * as well, to count them. Left as they are: retiring their kid would lose them.
   */
  unopenable: number;
}

/** Options of {@link reencryptUserItems}. */
export interface ReencryptUserItemsOptions {
  /** Count per kid (and plaintext items), write nothing. @default false */
  dryRun?: boolean;
  /** One tenant's namespace label (`labelOf(tenantId)`) instead of every tenant. @default every tenant */
  tenantLabel?: string;
  /**
   * Also seal items stored in plaintext (user memory written with no keyring, e.g. a stack under
   * `MEMORY_ALLOW_PLAINTEXT`), once, as the saver's `reencrypt({ encryptPlaintext })` does for
   * checkpoints: each is read as a plaintext item of its namespace's user (shape and owner checked)
   * and sealed with the active kid. Without it they stay plaintext, and a stack with a keyring
   * refuses them (`plaintext-record`: the turn goes on without that user's memory).
   * @default false
   */
  encryptPlaintext?: boolean;
}

const reencryptUserItemsOptionsSchema = z.strictObject({
  dryRun: z.boolean().optional(),
  tenantLabel: z.string().optional(),
  encryptPlaintext: z.boolean().optional(),
});

/**
 * Seals again with the keyring's active kid every user-memory item sealed with another one, in
 * every user's namespace (or one tenant's): step 3 of a key rotation for user memory (the saver's
 * `reencrypt` covers checkpoints only). Without it, retiring the old kid makes every user with an
 * item sealed under it lose all of their memory (each read fails, `unknown-kid`). With
 * `encryptPlaintext` it also seals the items stored in plaintext (a store written with no keyring).
 * One store `batch` per page; safe to run again. On a PostgresStore each page is one conditional
 * write (see `conditionalWriteOf`): an item a commit wrote since the page was read is not
 * overwritten with its older value; it is read again and sealed from its new one. A re-sealed item
 * is a write to the store: its `updatedAt` (what `expireUserItems` reads) starts again, so run
 * retention first.
 * @throws ThreadwiseConfigError naming `reencryptUserItems.codec` for a codec without a keyring,
 *   `reencryptUserItems.options` (or the field, `reencryptUserItems.dryRun`, ...) for options that
 *   are not an object of the fields above (an unknown key: `ThreadwiseUnknownOptionError`); the
 *   store's errors.
 */
export async function reencryptUserItems(
  store: BaseStore,
  codec: UserItemCodec,
  options: ReencryptUserItemsOptions = {},
): Promise<ReencryptUserItemsResult> {
  assertStoreShape(store, "reencryptUserItems.store");
  const active = (codec as UserItemCodec | undefined)?.activeKid;
  if (active === undefined)
    throw new ThreadwiseConfigError(
      "reencryptUserItems.codec",
      "a codec with a keyring (new UserItemCodec({ keyring, agentId, principalId }))",
    );
  const { dryRun, tenantLabel, encryptPlaintext } = parseOptions("reencryptUserItems", reencryptUserItemsOptionsSchema, options);
  if (tenantLabel !== undefined) assertTenantLabel(tenantLabel, "reencryptUserItems.tenantLabel");
  // Reads a plaintext item as a store without a keyring wrote it: shape and owner checked.
  const plain = encryptPlaintext ? new UserItemCodec() : undefined;
  const prefix = tenantLabel ? [...NAMESPACE_ROOT, tenantLabel] : [...NAMESPACE_ROOT];
  const result: ReencryptUserItemsResult = { byKid: {}, resealed: 0, plaintext: 0, sealedPlaintext: 0, unopenable: 0 };
  const conditional = conditionalWriteOf(store);
  await forEachNamespace(store, prefix, async (namespace) => {
    if (!isItemNamespaceUnder(namespace, prefix)) return;
    const [tenantId, userId] = [idOfLabel(namespace[3] as string), idOfLabel(namespace[4] as string)];
    for (let from = 0; ; from += PAGE) {
      const page = await store.search(namespace, { limit: PAGE, offset: from });
      const puts: ResealPut[] = [];
      const seals: ResealPut[] = [];
      for (const found of page) {
        const kid = sealedKid((found.value as { sealed?: unknown } | null)?.sealed);
        if (kid === undefined || tenantId === undefined || userId === undefined) {
          result.plaintext += 1;
          if (plain && kid === undefined && tenantId !== undefined && userId !== undefined && !dryRun) {
            const scope = { tenantId, userId };
            try {
              seals.push({
                key: found.key,
                value: encoded(codec, scope, plain.decode(scope, found.key, found.value)),
                expected: found.value,
              });
            } catch {
              // Not a well-formed item of this namespace's user: left as it is, counted in `plaintext`.
            }
          }
          continue;
        }
        result.byKid[kid] = (result.byKid[kid] ?? 0) + 1;
        if (kid === active) continue;
        const scope = { tenantId, userId };
        try {
          const item = codec.decode(scope, found.key, found.value);
          if (!dryRun) puts.push({ key: found.key, value: encoded(codec, scope, item), expected: found.value });
        } catch {
          result.unopenable += 1;
        }
      }
      if (tenantId !== undefined && userId !== undefined) {
        const scope = { tenantId, userId };
        result.resealed += await resealPage(store, codec, scope, conditional, namespace, puts, plain);
        result.sealedPlaintext += await resealPage(store, codec, scope, conditional, namespace, seals, plain);
      }
      if (page.length < PAGE) break;
    }
  });
  return result;
}

/** One item to write back sealed with the active kid, and the stored value it was sealed from. */
interface ResealPut {
  key: string;
  value: Record<string, unknown>;
  expected: unknown;
}

const encoded = (codec: UserItemCodec, scope: UserScope, item: UserItem): Record<string, unknown> =>
  codec.encode(scope, item) as unknown as Record<string, unknown>;

/** Times an item a commit writes again and again is read and re-sealed before the run leaves it (counted nowhere: the commit sealed it). */
const MAX_RESEAL_TRIES = 4;

/**
 * Writes a page of re-sealed items: with a conditional write, each only if it still holds the
 * value it was re-sealed from; one a commit wrote since the page was read is read again and
 * re-sealed from its new value (a commit of a process on the new keyring already sealed it with
 * the active kid; one deleted meanwhile is done). Else one `batch`. Returns how many were written.
 */
async function resealPage(
  store: BaseStore,
  codec: UserItemCodec,
  scope: UserScope,
  conditional: ConditionalWrite | undefined,
  namespace: string[],
  puts: ResealPut[],
  plain: UserItemCodec | undefined,
): Promise<number> {
  if (puts.length === 0) return 0;
  if (!conditional) {
    await store.batch(puts.map(({ key, value }) => ({ namespace, key, value })));
    return puts.length;
  }
  if (await conditional(namespace, puts)) return puts.length;
  // One item changed since the page was read: the others one by one, a changed one from its new value.
  let written = 0;
  for (const first of puts) {
    let put: typeof first | undefined = first;
    for (let attempt = 1; put && attempt <= MAX_RESEAL_TRIES; attempt += 1) {
      if (await conditional(namespace, [put])) {
        written += 1;
        break;
      }
      const now: unknown = (await store.get(namespace, put.key))?.value;
      const kid = sealedKid((now as { sealed?: unknown } | undefined)?.sealed);
      const key: string = put.key;
      put = undefined;
      // Gone, or sealed with the active kid since (a commit on the new keyring): done. Plaintext
      // again (a commit of a process still without a keyring) is sealed from its new value when asked.
      if (now === undefined || kid === codec.activeKid || (kid === undefined && !plain)) continue;
      try {
        put = {
          key,
          value: encoded(codec, scope, (kid === undefined ? (plain as UserItemCodec) : codec).decode(scope, key, now)),
          expected: now,
        };
      } catch {
        // Written since by another keyring, or not a well-formed item: not this run's to move.
      }
    }
  }
  return written;
}
