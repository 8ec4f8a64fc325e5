import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { chatModelOption, createTokenCounter, setBounded, withTimeout } from "@threadwise/core";
import {
  type CandidateFact,
  extractFactsHeuristic,
  extractFactsWithModel,
  type Fact,
  type FactExtractionModel,
} from "@threadwise/fact-recall";
import { memoizeCount, type RecallWords, type RenderedRecall, type ResolvedRecallOptions, resolveRecallOptions } from "@threadwise/recall";
import { conditionalWriteOf, serialized, ThreadwiseUserMemoryConflictError } from "./conditional-writes.js";
import { type ForgetPlan, forgetDeletedThreads, threadIdsOf } from "./deleted-threads.js";
import { UserItemCodec } from "./user-item-codec.js";
import {
  type CommittedTurn,
  factItemKey,
  MAX_SUPERSEDED_VALUES,
  planUserWrite,
  type SupersededValue,
  statedBefore,
  type TurnMessage,
  type UserItem,
  type UserWritePlan,
} from "./user-items.js";
import type { ResolvedUserMemoryOptions } from "./user-memory-options.js";
import { renderUserRecall, UserRecallIndex } from "./user-recall.js";
import { type UserScope, userNamespace } from "./user-scope.js";
import { type EraseUserItemsResult, eraseUserItems, readUserItems, writeUserItems } from "./user-store.js";

/** Users whose recall index a process keeps (least recently used first out). */
export const MAX_CACHED_USERS = 64;
/** Items read beyond `maxItems` (room for one turn's writes before the bound applies). */
const READ_SLACK = 256;
/** Plans a commit makes at most when other commits of the user write the same facts meanwhile. */
const MAX_COMMIT_ATTEMPTS = 4;
/**
 * Plans a commit makes at most on a store with conditional writes: each failed write means another
 * commit of the user wrote meanwhile, so it takes that many commits at once to reach this.
 */
const MAX_CONDITIONAL_ATTEMPTS = 16;
/** Deleted thread ids a process remembers (tombstones are permanent; ids not remembered are asked again). */
const MAX_KNOWN_DELETED = 100_000;

/** `true` when `a` and `b` are the same stored item (or both none). */
function sameItem(a: UserItem | undefined, b: UserItem | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && JSON.stringify(a) === JSON.stringify(b));
}

/**
 * `true` when `stored` (a fact item read after a write of `written`) still holds every value
 * `written` has from `threadId`, as its value or a superseded one; a fact deleted since, or one
 * whose superseded values are full of newer ones, counts as holding them.
 */
function keepsStatements(stored: UserItem | undefined, written: UserItem, threadId: string): boolean {
  if (!stored) return true;
  const held = [stored, ...(stored.superseded ?? [])].map((s) => ({
    ...s,
    value: "fact" in s && s.fact ? s.fact.value : (s as SupersededValue).value,
  }));
  const ours = [{ ...written, value: written.fact?.value ?? "" }, ...(written.superseded ?? [])].filter((s) => s.threadId === threadId);
  const full = (stored.superseded?.length ?? 0) >= MAX_SUPERSEDED_VALUES;
  const oldest = stored.superseded?.at(-1);
  return ours.every(
    (s) =>
      held.some((h) => h.threadId === s.threadId && h.messageId === s.messageId && h.value === s.value) ||
      (full && oldest !== undefined && !statedBefore(oldest, s)),
  );
}

/** What {@link UserMemoryEngine.recall} found. */
export interface UserRecall extends RenderedRecall {
  /** Items stored for the user (those of deleted threads not counted). */
  stored: number;
  /** Thread ids the user's items were read from (provenance and superseded values), sorted. */
  threadIds: string[];
  /** Store key and `updatedAt` of each item the block shows (see {@link UserMemoryEngine.placedChanged}). */
  placed: Array<{ key: string; updatedAt: string }>;
}

/** What {@link UserMemoryEngine.extract} found in one user message, and how. */
export interface ExtractedMessageFacts {
  facts: CandidateFact[];
  origin: Fact["origin"];
}

/** How {@link UserMemoryEngine.commit} and {@link UserMemoryEngine.extract} read facts with `llm` facts. */
export interface ExtractOptions {
  /** Model of the extraction when `userMemory({ model })` gives none. */
  model?: FactExtractionModel;
  /**
   * The facts already extracted from a message (userMemory: in the run's model call, kept in the
   * thread's state), used instead of a model call when there is no own model; `undefined` for one
   * not extracted.
   */
  extracted?: (message: TurnMessage) => ExtractedMessageFacts | undefined;
  /** Aborts the store and model calls. */
  signal?: AbortSignal;
}

/**
 * User memory without the middleware (spec R40): read, rank and render a user's memory, commit a
 * turn into it, erase it. `userMemory()` is this plus the hooks; benchmarks and operations use it
 * directly. Every call names the store and the scope; nothing crosses from one scope to another.
 */
export class UserMemoryEngine {
  readonly options: ResolvedUserMemoryOptions;
  readonly codec: UserItemCodec;
  readonly recallOptions: ResolvedRecallOptions;
  readonly countText: (text: string) => number;
  readonly #indexes = new Map<string, UserRecallIndex>();
  /** Thread ids `deletedThreads` reported deleted: a tombstone never goes, so they are not asked again. */
  readonly #deleted = new Map<string, true>();
  /** `options.model`: the object, or the model `initChatModel` makes of a string, once. */
  readonly ownModel: () => Promise<FactExtractionModel | undefined>;

  constructor(options: ResolvedUserMemoryOptions) {
    this.options = options;
    this.ownModel = chatModelOption<FactExtractionModel>("userMemory.model", options.model);
    this.codec = new UserItemCodec(
      options.keyring ? { keyring: options.keyring, agentId: options.agentId, principalId: options.principalId } : undefined,
    );
    this.recallOptions = resolveRecallOptions({ maxTokens: options.maxTokens, label: options.label }, {});
    const counter = createTokenCounter();
    this.countText = memoizeCount((text) => counter.countText(text));
  }

  #bounded<T>(work: () => Promise<T>, label: string, signal?: AbortSignal): Promise<T> {
    return withTimeout(() => work(), { timeoutMs: this.options.timeoutMs, label: `threadwise/user-memory:${label}`, signal });
  }

  #index(scope: UserScope): UserRecallIndex {
    const key = JSON.stringify([scope.tenantId, scope.userId]);
    let index = this.#indexes.get(key);
    if (index) this.#indexes.delete(key);
    else {
      index = new UserRecallIndex(this.recallOptions);
      if (this.#indexes.size >= MAX_CACHED_USERS) this.#indexes.delete(this.#indexes.keys().next().value as string);
    }
    this.#indexes.set(key, index);
    return index;
  }

  /**
   * Every stored item of the user.
   * @throws the store's errors, ThreadwiseTimeoutError past `timeoutMs`, and the codec's refusals.
   */
  read(store: BaseStore, scope: UserScope, signal?: AbortSignal): Promise<UserItem[]> {
    return this.#bounded(() => readUserItems(store, scope, this.codec, this.options.maxItems + READ_SLACK), "read", signal);
  }

  /**
   * The user's memory most relevant to `query` (the newest user message), rendered within
   * `maxTokens`; items of `threadId` are left out. Empty `text` when nothing matches.
   * @throws as {@link UserMemoryEngine.read}.
   */
  async recall(
    store: BaseStore,
    scope: UserScope,
    query: { text: string; threadId?: string; words?: RecallWords },
    signal?: AbortSignal,
  ): Promise<UserRecall> {
    const { kept: items } = await this.#forget(await this.read(store, scope, signal), signal);
    if (items.length === 0) return { text: "", tokens: 0, messageIds: [], factKeys: [], items: [], stored: 0, threadIds: [], placed: [] };
    const options = query.words ? { ...this.recallOptions, words: query.words } : this.recallOptions;
    const rendered = renderUserRecall(this.#index(scope), items, query.text, query.threadId, options, this.countText);
    const byKey = new Map(items.map((item) => [item.key, item]));
    const placed = [...rendered.messageIds, ...rendered.factKeys.map(factItemKey)].flatMap((key) => {
      const item = byKey.get(key);
      return item ? [{ key, updatedAt: item.updatedAt }] : [];
    });
    return { ...rendered, stored: items.length, threadIds: [...new Set(items.flatMap(threadIdsOf))].sort(), placed };
  }

  /**
   * `true` when an item a block showed (`placed`, from {@link UserMemoryEngine.recall}) is gone or
   * was written again since (erased, expired, taken back by an edit, superseded): the block is no
   * longer what a fresh process would place. One store batch of `placed.length` reads.
   * @throws the store's errors, ThreadwiseTimeoutError past `timeoutMs`.
   */
  async placedChanged(
    store: BaseStore,
    scope: UserScope,
    placed: ReadonlyArray<{ key: string; updatedAt: string }>,
    signal?: AbortSignal,
  ): Promise<boolean> {
    if (placed.length === 0) return false;
    const now = await this.#itemsNow(store, scope, placed, signal);
    return placed.some((item) => now.get(item.key)?.item?.updatedAt !== item.updatedAt);
  }

  /**
   * Which of `threadIds` are deleted threads, by `deletedThreads` (none without it). Ids reported
   * once are remembered: a tombstone is permanent.
   * @throws what `deletedThreads` throws, ThreadwiseTimeoutError past `timeoutMs`.
   */
  async deletedAmong(threadIds: readonly string[], signal?: AbortSignal): Promise<Set<string>> {
    const lookup = this.options.deletedThreads;
    const deleted = new Set(threadIds.filter((id) => this.#deleted.has(id)));
    const unknown = [...new Set(threadIds)].filter((id) => !deleted.has(id));
    if (!lookup || unknown.length === 0) return deleted;
    for (const id of await this.#bounded(async () => [...(await lookup(unknown))], "deleted-threads", signal)) {
      deleted.add(id);
      setBounded(this.#deleted, id, true, MAX_KNOWN_DELETED);
    }
    return deleted;
  }

  /** `items` without what deleted threads said (see `forgetDeletedThreads`). */
  async #forget(items: readonly UserItem[], signal?: AbortSignal): Promise<ForgetPlan> {
    if (!this.options.deletedThreads || items.length === 0) return { kept: [...items], puts: [], deletes: [] };
    return forgetDeletedThreads(items, await this.deletedAmong([...new Set(items.flatMap(threadIdsOf))], signal));
  }

  /**
   * Writes one committed turn into the user's memory (see `planUserWrite`): new messages, facts
   * (superseded values kept), the thread's digest, then the bound. Idempotent per message id and
   * text; a stored message of the thread with other words now (`turn.current`) is an edit.
   * One process's commits of a user on one store object read, plan and write one after another
   * (`serialized`); with `llm` facts the model reads the turn's messages before that, outside it
   * (one extra read of the user's items), so two threads' model calls overlap.
   * @throws as {@link UserMemoryEngine.read}, and the store's write errors.
   */
  async commit(store: BaseStore, scope: UserScope, turn: CommittedTurn, options: ExtractOptions = {}): Promise<UserWritePlan> {
    // Each message's facts read once per commit, whichever plan asks (extraction depends on the
    // message alone: its id, speaker and words).
    const found = new Map<string, Promise<ExtractedMessageFacts>>();
    const extract =
      this.options.factsMode === "off"
        ? undefined
        : (message: TurnMessage) => {
            const key = JSON.stringify([message.id, message.name ?? null, message.text]);
            let facts = found.get(key);
            if (!facts) {
              facts = this.extract(message, options);
              found.set(key, facts);
            }
            return facts;
          };
    // `llm` facts may call a model: the messages the turn needs read are found by a plan over the
    // items as they are now, outside the user's lock, so one user's commits in this process wait
    // for each other's read-plan-write only, not for each other's model calls. The plan under the
    // lock reads again and takes these facts; a message only it needs read is read there.
    if (extract && this.options.factsMode === "llm") await this.#plan(store, scope, turn, extract, options.signal);
    return serialized(store, JSON.stringify(userNamespace(scope)), () => this.#commit(store, scope, turn, extract, options));
  }

  /** The turn's plan over `read` (the user's items as read), with deleted threads' items purged. */
  async #plan(
    store: BaseStore,
    scope: UserScope,
    turn: CommittedTurn,
    extract: ((message: TurnMessage) => Promise<ExtractedMessageFacts>) | undefined,
    signal: AbortSignal | undefined,
    read?: readonly UserItem[],
  ): Promise<{ forget: ForgetPlan; plan: UserWritePlan }> {
    const forget = await this.#forget(read ?? (await this.read(store, scope, signal)), signal);
    const plan = await planUserWrite(forget.kept, turn, scope, {
      maxItems: this.options.maxItems,
      maxBytes: this.options.maxBytes,
      keepMessages: this.options.keepMessages,
      maxMessageCharacters: this.options.maxMessageCharacters,
      ...(extract ? { extract } : {}),
    });
    return { forget, plan };
  }

  async #commit(
    store: BaseStore,
    scope: UserScope,
    turn: CommittedTurn,
    extract: ((message: TurnMessage) => Promise<ExtractedMessageFacts>) | undefined,
    options: ExtractOptions,
  ): Promise<UserWritePlan> {
    const conditional = conditionalWriteOf(store);
    const attempts = conditional ? MAX_CONDITIONAL_ATTEMPTS : MAX_COMMIT_ATTEMPTS;
    // Message items this commit wrote, read as not stored yet when it plans again after a lost race.
    const hidden = new Set<string>();
    for (let attempt = 1; ; attempt += 1) {
      const read = (await this.read(store, scope, options.signal)).filter((item) => !hidden.has(item.key));
      // Items of deleted threads are purged with this write (what recall already left out).
      const { forget, plan } = await this.#plan(store, scope, turn, extract, options.signal, read);
      // The turn's plan wins over the purge for a key both touch; no key is both put and deleted.
      const deletes = new Set([...forget.deletes, ...plan.deletes]);
      const planned = new Set(plan.puts.map((item) => item.key));
      const puts = [...forget.puts.filter((item) => !planned.has(item.key) && !deletes.has(item.key)), ...plan.puts];
      for (const item of plan.puts) deletes.delete(item.key);
      const write: UserWritePlan = { puts, deletes: [...deletes] };
      const facts = plan.puts.filter((item) => item.kind === "fact");
      const before = new Map(read.map((item) => [item.key, item]));
      const last = attempt >= attempts;
      if (conditional) {
        // Everything the commit writes (its facts, the purge's rewrites of facts a deleted thread
        // stated, its messages and the thread's digest) and deletes, in one conditional write: the
        // items as stored now, and when one differs from what the plan read, plan again; else write
        // each only if its key still holds that value, all or none (another commit's write between
        // this check and the write makes it write nothing, and plan again). A write that outlives
        // `timeoutMs` and lands later writes nothing over what was written since (a retry's, a
        // newer turn's message text or digest).
        const keys = [...write.puts, ...write.deletes.map((key) => ({ key }))];
        if (keys.length > 0) {
          const now = await this.#itemsNow(store, scope, keys, options.signal);
          const unchanged = [...now.keys()].every((key) => sameItem(now.get(key)?.item, before.get(key)));
          const codec = this.codec;
          const ops = unchanged
            ? [
                ...write.puts.map((item) => ({
                  key: item.key,
                  expected: now.get(item.key)?.value,
                  value: codec.encode(scope, item) as unknown as Record<string, unknown>,
                })),
                ...write.deletes.map((key) => ({ key, expected: now.get(key)?.value, value: null })),
              ]
            : [];
          const written = unchanged && (await this.#bounded(() => conditional(userNamespace(scope), ops), "write", options.signal));
          if (!written) {
            if (last) throw new ThreadwiseUserMemoryConflictError(scope, attempt);
            continue;
          }
        }
        return write;
      }
      // A store without conditional writes: check, write, read back.
      // Another commit of the user (another thread, process) wrote one of these facts since the
      // read: plan again over what it wrote, or its value would be overwritten without a trace.
      if (!last && facts.length > 0) {
        const now = await this.#itemsNow(store, scope, facts, options.signal);
        if (facts.some((item) => !sameItem(now.get(item.key)?.item, before.get(item.key)))) continue;
      }
      // The facts first, right after the check above: the window in which another process's
      // commit goes unseen is one store round trip (this store has no conditional write).
      const factKeys = new Set(facts.map((item) => item.key));
      await this.#bounded(() => writeUserItems(store, scope, this.codec, facts, []), "write", options.signal);
      const rest = write.puts.filter((item) => !factKeys.has(item.key));
      await this.#bounded(() => writeUserItems(store, scope, this.codec, rest, write.deletes), "write", options.signal);
      if (last || facts.length === 0) return write;
      // A commit that read before this write and wrote after it overwrote this turn's statements:
      // plan again over its write (this turn's messages read as new, so their facts are read again).
      const after = await this.#itemsNow(store, scope, facts, options.signal);
      if (facts.every((item) => keepsStatements(after.get(item.key)?.item, item, turn.threadId))) return write;
      for (const item of plan.puts) if (item.kind === "message") hidden.add(item.key);
    }
  }

  /**
   * The stored items under the keys of `items`, read in one store batch: each key's value as the
   * store returned it (`value`, `undefined` for none) and decoded (`item`, `undefined` for none or
   * one that cannot be opened).
   */
  async #itemsNow(
    store: BaseStore,
    scope: UserScope,
    items: ReadonlyArray<{ key: string }>,
    signal?: AbortSignal,
  ): Promise<Map<string, { value: unknown; item: UserItem | undefined }>> {
    const namespace = userNamespace(scope);
    const found = await this.#bounded(() => store.batch(items.map((item) => ({ namespace, key: item.key }))), "read", signal);
    const out = new Map<string, { value: unknown; item: UserItem | undefined }>();
    items.forEach((item, i) => {
      const value = (found[i] as { value?: unknown } | null | undefined)?.value;
      let decoded: UserItem | undefined;
      try {
        decoded = value === undefined ? undefined : this.codec.decode(scope, item.key, value);
      } catch {
        decoded = undefined;
      }
      out.set(item.key, { value, item: decoded });
    });
    return out;
  }

  /**
   * The facts of one user message: with `llm` facts, by `options.model` (the own `model` first),
   * else by what `options.extracted` kept for it, else (and when the model call fails) by the rules.
   */
  async extract(message: TurnMessage, options: ExtractOptions = {}): Promise<ExtractedMessageFacts> {
    // A named message (a speaker of a multi-party thread) states facts about that speaker.
    const text = message.name ? `${message.name}: ${message.text}` : message.text;
    const heuristic = () => ({
      facts: extractFactsHeuristic(text, { speakerPrefix: message.name !== undefined }),
      origin: "heuristic" as const,
    });
    if (this.options.factsMode !== "llm") return heuristic();
    const own = await this.ownModel();
    const kept = own ? undefined : options.extracted?.(message);
    if (kept) return kept;
    const model = own ?? options.model;
    if (!model) return heuristic();
    try {
      return {
        facts: await extractFactsWithModel(model, message.text, { timeoutMs: this.options.timeoutMs, signal: options.signal }),
        origin: "llm",
      };
    } catch {
      return heuristic();
    }
  }

  /**
   * Deletes every item of the user's memory.
   * @returns the items deleted and the thread ids their provenance named.
   */
  erase(store: BaseStore, scope: UserScope): Promise<EraseUserItemsResult> {
    this.#indexes.delete(JSON.stringify([scope.tenantId, scope.userId]));
    return eraseUserItems(store, scope, this.codec);
  }
}
