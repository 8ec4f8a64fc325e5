import { type Fact, factSchema, rollBackFact } from "@threadwise/fact-recall";
import type { SupersededValue, UserItem } from "./user-items.js";

/**
 * Which of `threadIds` name deleted threads (tombstones, spec R24), in any order. Tombstones are
 * permanent, so an id once reported deleted stays deleted; an id not reported may be deleted later.
 * `memoryStack` passes `ThreadwiseSaver.deletedThreads`.
 */
export type DeletedThreadsLookup = (threadIds: readonly string[]) => Promise<Iterable<string>>;

/** What {@link forgetDeletedThreads} makes of a user's items. */
export interface ForgetPlan {
  /** The items as they read without the deleted threads: what recall ranks and a commit plans over. */
  kept: UserItem[];
  /** Fact items rewritten without the deleted threads' values (store them to purge those values). */
  puts: UserItem[];
  /** Keys of items that came from deleted threads only (delete them to purge). */
  deletes: string[];
}

/** Every thread id `item` holds words of: its provenance and its superseded values'. */
export function threadIdsOf(item: UserItem): string[] {
  return [item.threadId, ...(item.superseded ?? []).map((value) => value.threadId)];
}

/** `fact` with its keys in `factSchema`'s order (the order `planFactWrite` writes), `undefined` values left out. */
function inSchemaOrder(fact: Record<string, unknown>): Fact {
  return Object.fromEntries(Object.keys(factSchema.shape).flatMap((key) => (fact[key] === undefined ? [] : [[key, fact[key]]]))) as Fact;
}

/**
 * `item` (a fact) without the values stated in deleted threads. Its superseded values name their
 * thread; its fact's `history` names only message ids, so a history entry is kept only when its
 * message id is one the item places in a thread that stays (an entry no provenance places is
 * dropped: a deleted thread's words are never kept on a guess). When the current value was stated
 * in a deleted thread, the fact rolls back (fact-recall's `rollBackFact`) to its newest earlier value
 * stated in a thread that stays, with that statement's provenance; with none, `undefined`.
 */
function forgetInFact(item: UserItem, deleted: ReadonlySet<string>): UserItem | undefined {
  const fact = item.fact as Fact;
  const threadsOf = new Map<string, Set<string>>();
  const place = (messageId: string | null, threadId: string) => {
    if (messageId === null) return;
    const threads = threadsOf.get(messageId) ?? new Set<string>();
    threads.add(threadId);
    threadsOf.set(messageId, threads);
  };
  place(item.messageId, item.threadId);
  for (const value of item.superseded ?? []) place(value.messageId, value.threadId);
  // Message ids are the caller's: one id in two threads counts as gone when either thread is deleted.
  const gone = (messageId: string): boolean => {
    const threads = threadsOf.get(messageId);
    return threads === undefined || [...threads].some((threadId) => deleted.has(threadId));
  };
  const superseded: SupersededValue[] = (item.superseded ?? []).filter((value) => !deleted.has(value.threadId));
  if (!deleted.has(item.threadId)) {
    const history = (fact.history ?? []).filter((entry) => typeof entry.sourceMessageId === "string" && !gone(entry.sourceMessageId));
    const { previousValue: _previousValue, history: _history, ...rest } = fact;
    const kept = inSchemaOrder({ ...rest, previousValue: history.at(-1)?.value, history: history.length > 0 ? history : undefined });
    const { superseded: _superseded, ...base } = item;
    return { ...base, fact: kept, ...(superseded.length > 0 ? { superseded } : {}) };
  }
  const back = rollBackFact(fact, gone);
  if (!back) return undefined;
  // The statement it rolled back to: a superseded value of a thread that stays (`gone` placed it there).
  let at = superseded.findIndex((value) => value.messageId === back.sourceMessageId && value.value === back.value);
  if (at < 0) at = superseded.findIndex((value) => value.messageId === back.sourceMessageId);
  const source = superseded[at];
  if (!source) return undefined;
  // Newest first: what was superseded before that statement stays superseded.
  const older = superseded.slice(at + 1);
  const { superseded: _superseded, saidAt: _saidAt, ...base } = item;
  return {
    ...base,
    threadId: source.threadId,
    messageId: source.messageId,
    at: source.at,
    ...(source.saidAt !== undefined ? { saidAt: source.saidAt } : {}),
    text: back.text,
    fact: back,
    ...(older.length > 0 ? { superseded: older } : {}),
  };
}

/**
 * A user's items as they read once the threads in `deleted` are gone (spec R24, R40): the
 * `message` and `digest` items of a deleted thread go; a `fact` loses the values stated in a
 * deleted thread (its superseded values and history entries), and a fact whose current value was
 * stated there rolls back to its newest earlier value stated in a thread that stays, or goes when
 * there is none. Items of threads that stay are untouched (the same objects). Pure: recall reads
 * `kept`, and a commit writes `puts` and `deletes`, so what a process recalls before the purge is
 * what any process reads after it.
 */
export function forgetDeletedThreads(items: readonly UserItem[], deleted: ReadonlySet<string>): ForgetPlan {
  if (deleted.size === 0) return { kept: [...items], puts: [], deletes: [] };
  const kept: UserItem[] = [];
  const puts: UserItem[] = [];
  const deletes: string[] = [];
  for (const item of items) {
    if (!threadIdsOf(item).some((threadId) => deleted.has(threadId))) {
      kept.push(item);
      continue;
    }
    const forgotten = item.kind === "fact" && item.fact ? forgetInFact(item, deleted) : undefined;
    if (forgotten) {
      kept.push(forgotten);
      puts.push(forgotten);
    } else deletes.push(item.key);
  }
  return { kept, puts, deletes };
}
