import { HumanMessage } from "@langchain/core/messages";
import type { Fact } from "@threadwise/fact-recall";
import {
  createThreadRecallState,
  type RenderedRecall,
  type ResolvedRecallOptions,
  recallForQuery,
  type ThreadRecallState,
} from "@threadwise/recall";
import { messageItemKey, type UserItem } from "./user-items.js";

/** Speaker shown for a thread digest in the block. */
export const DIGEST_SPEAKER = "earlier conversation";

/** The order items are indexed in: first stored first, a commit's messages in their order. */
export function indexOrder(a: UserItem, b: UserItem): number {
  if (a.storedAt !== b.storedAt) return a.storedAt < b.storedAt ? -1 : 1;
  if (a.threadId !== b.threadId) return a.threadId < b.threadId ? -1 : 1;
  const byOrder = (a.order ?? 0) - (b.order ?? 0);
  if (byOrder !== 0) return byOrder;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** A message built from an item, with the values it was built from (compared by value: see `sync`). */
interface CachedMessage {
  text: string;
  name: string | undefined;
  at: string;
  message: HumanMessage;
}

/**
 * One user's recall state in the process: recall's message index over the user's `message` and
 * `digest` items (as user messages with `name` and timestamp) and its fact index over the facts.
 * Nothing here is persisted; it is rebuilt from the store's items.
 */
export class UserRecallIndex {
  readonly state: ThreadRecallState;
  readonly #messages = new Map<string, CachedMessage>();
  /** The items last synced and the facts they gave: the codec hands back the same objects for unchanged values. */
  #last: { items: readonly UserItem[]; facts: Fact[] } | undefined;
  /** Thread id of each indexed message and digest, by item key (the index's message id). */
  #threads = new Map<string, string>();

  constructor(options: Pick<ResolvedRecallOptions, "maxIndexedMessages" | "timestampOf">) {
    this.state = createThreadRecallState(options);
  }

  /** Syncs with `items` and returns the facts to search (their `sourceMessageId` is the message item's key). */
  sync(items: readonly UserItem[]): { facts: Fact[] } {
    const last = this.#last;
    if (last && last.items.length === items.length && last.items.every((item, i) => item === items[i])) return { facts: last.facts };
    const documents = items.filter((item) => item.kind !== "fact").sort(indexOrder);
    const seen = new Set<string>();
    const messages = documents.map((item) => {
      seen.add(item.key);
      const cached = this.#messages.get(item.key);
      const name = item.kind === "digest" ? DIGEST_SPEAKER : item.name;
      // Reused only when built from the same values: `updatedAt` is the same for two writes in one
      // millisecond, or for an item of another store under the same key.
      if (cached && cached.text === item.text && cached.name === name && cached.at === item.at) return cached.message;
      const message = new HumanMessage({
        id: item.key,
        content: item.text,
        ...(name ? { name } : {}),
        additional_kwargs: { timestamp: item.at },
      });
      this.#messages.set(item.key, { text: item.text, name, at: item.at, message });
      return message;
    });
    for (const key of [...this.#messages.keys()]) if (!seen.has(key)) this.#messages.delete(key);
    this.#threads = new Map(documents.map((item) => [item.key, item.threadId]));
    this.state.index.sync(messages);
    const facts = items
      .filter((item) => item.kind === "fact" && item.fact)
      .map((item) => ({
        ...(item.fact as Fact),
        sourceMessageId: item.messageId === null ? null : messageItemKey(item.threadId, item.messageId),
      }));
    this.#last = { items: [...items], facts };
    return { facts };
  }

  /** The thread an indexed message or digest (by item key) was said in, as of the last sync. */
  threadOf(key: string): string | undefined {
    return this.#threads.get(key);
  }
}

/**
 * Ranks and renders a user's memory for `query` as recall does (spec R35, R40): BM25+ with core's
 * Korean-aware tokenizer over the messages and digests, BM25+ over the facts, fused, within
 * `options.maxTokens`. Items of the thread asking (`threadId`) are left out: they are in that
 * thread's own history. Lines carry no `#<position>`: recall numbers the user's messages across
 * threads, and a model reading `#12` in the asking thread would look for that thread's message 12;
 * a line says when it was said, a fact when its source message was. The index orders the user's
 * items by when they were stored, across threads: a line's neighbours come from its own thread,
 * each thread's lines stand together and a `---` line (recall's `THREAD_BREAK`) separates two
 * threads, so lines of two threads never read as one exchange.
 */
export function renderUserRecall(
  index: UserRecallIndex,
  items: readonly UserItem[],
  query: string,
  threadId: string | undefined,
  options: ResolvedRecallOptions,
  countText: (text: string) => number,
): RenderedRecall {
  const { facts } = index.sync(items);
  const own = new Set(items.filter((item) => item.threadId === threadId && item.kind !== "fact").map((item) => item.key));
  const threadOf = (key: string) => index.threadOf(key);
  return recallForQuery(index.state, { query, inView: own, facts, positions: false, threadOf }, options, countText);
}
