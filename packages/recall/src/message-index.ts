import type { BaseMessage } from "@langchain/core/messages";
import { isContextMessage, messageText, messageType, tokenize } from "@threadwise/core";
import MiniSearch from "minisearch";

/** One message of the thread, as recall indexed it. */
export interface RecallEntry {
  /** Index-local sequence number: consecutive over indexed messages, so `seq ± 1` are the neighbours. */
  readonly seq: number;
  /** The message id (LangChain gives every stored message one). */
  readonly id: string;
  /** 1-based position of the message in the stored thread, as of the last sync. */
  position: number;
  /** Who said it: a user message or an assistant (AI) message with text. */
  readonly role: "user" | "assistant";
  /** A user message's `name` field (a speaker in a multi-party thread), when set. */
  readonly name?: string;
  /** The message's text (text blocks joined). */
  readonly text: string;
  /** When it was said, as {@link timestampOf} read it; absent when the message carries none. */
  readonly timestamp?: string;
  /** The message's terms (core `tokenize`), computed once at indexing. */
  readonly terms: readonly string[];
  /** Tokens of `text`, counted once at indexing when the index has a token counter. */
  readonly tokens?: number;
}

/** Options of {@link MessageIndex}. */
export interface MessageIndexOptions {
  /** Most messages indexed per thread; the oldest go first (messages). */
  maxMessages: number;
  /** Reads a message's timestamp; see {@link timestampOf}. */
  timestampOf?: (message: BaseMessage) => string | undefined;
  /** Counts a message's tokens once at indexing, so rendering a recalled message costs no encoding. */
  countText?: (text: string) => number;
}

/** What one {@link MessageIndex.sync} did. */
export interface SyncResult {
  /** Messages indexed by this sync. */
  added: number;
  /** Messages dropped from the index (bound, or deleted from the stored thread). */
  discarded: number;
  /** `true` when the stored thread no longer extended what was indexed, so the index was rebuilt. */
  rebuilt: boolean;
}

function formatTimestamp(value: unknown): string | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return new Date(value).toISOString().replace(/:\d\d\.\d{3}Z$/, "Z");
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString().replace(/:\d\d\.\d{3}Z$/, "Z");
  if (typeof value === "string" && value.trim() !== "") return value.trim();
  return undefined;
}

/**
 * Reads when a message was said. A message carries its time as `additional_kwargs.timestamp` or
 * `response_metadata.timestamp` (first found wins): an ISO 8601 string, any other date string
 * (placed as written, e.g. `1:56 pm on 8 May, 2023`), a `Date`, or milliseconds since the epoch.
 * Returns `undefined` when neither is set. Pass your own `timestampOf` to `recall()` to read
 * another field.
 *
 * @example
 * new HumanMessage({ content: "I moved to Busan", additional_kwargs: { timestamp: "2026-03-02T09:15:00Z" } });
 */
export function timestampOf(message: BaseMessage): string | undefined {
  return (
    formatTimestamp((message.additional_kwargs as Record<string, unknown> | undefined)?.timestamp) ??
    formatTimestamp((message.response_metadata as Record<string, unknown> | undefined)?.timestamp)
  );
}

/** The role recall gives a stored message, or `undefined` when it is not indexed (system, tool, context, empty). */
function roleOf(message: BaseMessage): "user" | "assistant" | undefined {
  const type = messageType(message);
  if (type === "human") return isContextMessage(message) ? undefined : "user";
  if (type === "ai") return "assistant";
  return undefined;
}

/**
 * The incremental full-text index of one thread's messages (spec R35): MiniSearch (BM25+) with
 * core's Korean-aware `tokenize`, over each user and assistant message's text, a user message's
 * speaker `name` (multi-party threads) included. System, tool and rendered context messages are not indexed.
 *
 * {@link MessageIndex.sync} is called with the stored thread before each search. When the thread
 * extends what was indexed (the usual case: new messages appended), only the new messages are
 * tokenized and added: O(new). When the oldest messages were deleted (persistTrim), their entries
 * are discarded: O(deleted). Any other change (a message removed in the middle, time travel to an
 * older checkpoint, another process's unrelated history) rebuilds the index from the stored
 * thread, as after a restart. At most `maxMessages` messages are kept, the oldest dropped first.
 */
export class MessageIndex {
  readonly #options: MessageIndexOptions;
  #mini = MessageIndex.#newMini();
  #entries: RecallEntry[] = [];
  #head = 0;
  #bySeq = new Map<number, RecallEntry>();
  #byId = new Map<string, RecallEntry>();
  #nextSeq = 0;
  /** Stored messages seen by the last sync, and the first and last of them. */
  #syncedLength = 0;
  #first: BaseMessage | undefined;
  #last: BaseMessage | undefined;

  constructor(options: MessageIndexOptions) {
    this.#options = options;
  }

  static #newMini() {
    // Documents arrive tokenized (terms joined by NUL), so each message is tokenized once.
    return new MiniSearch<{ id: number; text: string }>({
      fields: ["text"],
      tokenize: (text) => text.split("\u0000"),
      processTerm: (term) => (term === "" ? null : term),
      searchOptions: { combineWith: "OR", prefix: false, fuzzy: false },
    });
  }

  /** Messages indexed. */
  get size(): number {
    return this.#entries.length - this.#head;
  }

  /** The entry with sequence number `seq`, if still indexed. */
  entry(seq: number): RecallEntry | undefined {
    return this.#bySeq.get(seq);
  }

  /** The entry of message `id`, if indexed. */
  byMessageId(id: string): RecallEntry | undefined {
    return this.#byId.get(id);
  }

  /** Indexed entries, oldest first. */
  entries(): RecallEntry[] {
    return this.#entries.slice(this.#head);
  }

  /** Brings the index in line with the stored thread; see the class comment. */
  sync(stored: readonly BaseMessage[]): SyncResult {
    if (this.#syncedLength > 0) {
      const n = this.#syncedLength;
      if (stored.length >= n && same(stored[n - 1], this.#last) && same(stored[0], this.#first)) {
        return { added: this.#append(stored, n), discarded: this.#bound(), rebuilt: false };
      }
      const trimmed = same(stored[0], this.#first) ? undefined : this.#afterPrefixDeletion(stored);
      if (trimmed) return trimmed;
    }
    return this.rebuild(stored);
  }

  /** Indexes `stored` from scratch (the newest `maxMessages` indexable messages), as after a restart. */
  rebuild(stored: readonly BaseMessage[]): SyncResult {
    const rebuilt = this.#syncedLength > 0;
    this.#reset();
    // Index only the newest maxMessages indexable messages of a long thread.
    let start = stored.length;
    let count = 0;
    while (start > 0 && count < this.#options.maxMessages) {
      start -= 1;
      if (roleOf(stored[start] as BaseMessage) !== undefined) count += 1;
    }
    const added = this.#appendFrom(stored, start);
    this.#syncedLength = stored.length;
    this.#first = stored[0];
    this.#last = stored[stored.length - 1];
    return { added, discarded: 0, rebuilt };
  }

  /**
   * Whether any of the messages `ids` changed in `stored` since it was indexed: not at its indexed
   * position any more, or another text under the same id. {@link MessageIndex.sync} compares ids
   * only (O(new)), so it misses a message edited in place: sent again under its own id, which
   * LangGraph's messages reducer puts where the old one was (an edit, a redaction). Check what is
   * about to be shown with this, and {@link MessageIndex.rebuild} when it returns `true`. O(ids).
   */
  changed(stored: readonly BaseMessage[], ids: readonly string[]): boolean {
    for (const id of ids) {
      const entry = this.#byId.get(id);
      if (!entry) return true;
      const message = stored[entry.position - 1];
      if (message?.id !== id || messageText(message).trim() !== entry.text) return true;
    }
    return false;
  }

  /**
   * BM25+ search for `terms` (already tokenized), best first, skipping entries for which `skip`
   * is true, at most `k` results.
   */
  search(terms: readonly string[], k: number, skip?: (entry: RecallEntry) => boolean): Array<{ entry: RecallEntry; score: number }> {
    if (terms.length === 0 || k <= 0 || this.size === 0) return [];
    const out: Array<{ entry: RecallEntry; score: number }> = [];
    for (const hit of this.#mini.search(terms.join("\u0000"), { tokenize: (text) => text.split("\u0000") })) {
      const entry = this.#bySeq.get(hit.id as number);
      if (!entry || skip?.(entry)) continue;
      out.push({ entry, score: hit.score });
      if (out.length >= k) break;
    }
    return out;
  }

  #reset(): void {
    this.#mini = MessageIndex.#newMini();
    this.#entries = [];
    this.#head = 0;
    this.#bySeq.clear();
    this.#byId.clear();
    this.#syncedLength = 0;
    this.#first = undefined;
    this.#last = undefined;
  }

  #append(stored: readonly BaseMessage[], from: number): number {
    const added = this.#appendFrom(stored, from);
    this.#syncedLength = stored.length;
    this.#last = stored[stored.length - 1];
    return added;
  }

  #appendFrom(stored: readonly BaseMessage[], from: number): number {
    let added = 0;
    for (let i = from; i < stored.length; i += 1) {
      const message = stored[i] as BaseMessage;
      const role = roleOf(message);
      if (role === undefined) continue;
      const text = messageText(message).trim();
      if (text === "") continue;
      const id = typeof message.id === "string" && message.id !== "" ? message.id : `position:${i + 1}`;
      if (this.#byId.has(id)) continue;
      const terms = tokenize(text);
      // AI messages carry the agent's name (createAgent sets it), not a speaker's.
      const name = role === "user" && typeof message.name === "string" && message.name !== "" ? message.name : undefined;
      const timestamp = (this.#options.timestampOf ?? timestampOf)(message);
      const entry: RecallEntry = {
        seq: this.#nextSeq++,
        id,
        position: i + 1,
        role,
        text,
        terms,
        ...(this.#options.countText ? { tokens: this.#options.countText(text) } : {}),
        ...(name ? { name } : {}),
        ...(timestamp ? { timestamp } : {}),
      };
      this.#entries.push(entry);
      this.#bySeq.set(entry.seq, entry);
      this.#byId.set(id, entry);
      // The speaker's name is indexed with the text, as `Name: text` would be.
      this.#mini.add({ id: entry.seq, text: (name ? [...tokenize(name), ...terms] : terms).join("\u0000") });
      added += 1;
    }
    return added;
  }

  /** Drops the oldest entries past the bound. */
  #bound(): number {
    let discarded = 0;
    while (this.size > this.#options.maxMessages) {
      this.#discardHead();
      discarded += 1;
    }
    this.#compact();
    return discarded;
  }

  #discardHead(): void {
    const entry = this.#entries[this.#head] as RecallEntry;
    this.#head += 1;
    this.#mini.discard(entry.seq);
    this.#bySeq.delete(entry.seq);
    this.#byId.delete(entry.id);
  }

  #compact(): void {
    if (this.#head > 1024 && this.#head * 2 > this.#entries.length) {
      this.#entries = this.#entries.slice(this.#head);
      this.#head = 0;
    }
  }

  /**
   * Whether `stored[0..p]` is the synced thread without its first `deleted` messages, as far as
   * the index can tell: every entry past them sits `deleted` positions earlier, no entry of them is
   * still stored, and no indexable message is missing from the index (the bound drops the oldest
   * first, so only messages older than every entry may be). Counting the missing messages alone
   * is not enough: a head trim plus a deletion further on (persistTrim and a `RemoveMessage` in
   * one run, or two processes) miss as many, and the head would then take still-stored messages
   * with it. O(p + entries) id comparisons.
   */
  #isHeadTrim(stored: readonly BaseMessage[], p: number, deleted: number): boolean {
    const kept = new Set<string>();
    for (let i = this.#head; i < this.#entries.length; i += 1) {
      const entry = this.#entries[i] as RecallEntry;
      if (entry.position <= deleted) continue;
      if (stored[entry.position - deleted - 1]?.id !== entry.id) return false;
      kept.add(entry.id);
    }
    const oldest = this.#entries[this.#head];
    const indexedFrom = oldest && oldest.position > deleted ? oldest.position - deleted - 1 : 0;
    for (let i = 0; i <= p; i += 1) {
      const message = stored[i] as BaseMessage;
      const id = typeof message.id === "string" && message.id !== "" ? message.id : `position:${i + 1}`;
      if (kept.has(id)) continue;
      if (this.#byId.has(id) || (i >= indexedFrom && indexable(message))) return false;
    }
    return true;
  }

  /**
   * The oldest messages were deleted (persistTrim): the last synced message is still there, at a
   * smaller position. Discards entries of deleted messages, shifts positions, appends new ones.
   * `undefined` when the change is anything else (also a head trim together with a deletion
   * further on, e.g. a `RemoveMessage` in the same run: see {@link MessageIndex.#isHeadTrim}).
   */
  #afterPrefixDeletion(stored: readonly BaseMessage[]): SyncResult | undefined {
    const n = this.#syncedLength;
    for (let p = Math.min(n, stored.length) - 1; p >= 0; p -= 1) {
      if (!same(stored[p], this.#last)) continue;
      const deleted = n - (p + 1);
      if (deleted <= 0 || !this.#isHeadTrim(stored, p, deleted)) return undefined;
      let discarded = 0;
      while (this.size > 0 && (this.#entries[this.#head] as RecallEntry).position <= deleted) {
        this.#discardHead();
        discarded += 1;
      }
      for (let i = this.#head; i < this.#entries.length; i += 1) (this.#entries[i] as RecallEntry).position -= deleted;
      this.#syncedLength = p + 1;
      this.#first = stored[0];
      const added = this.#append(stored, p + 1);
      return { added, discarded: discarded + this.#bound(), rebuilt: false };
    }
    return undefined;
  }
}

/** Whether recall indexes `message`: a user or assistant message with text. */
function indexable(message: BaseMessage): boolean {
  return roleOf(message) !== undefined && messageText(message).trim() !== "";
}

/** Same stored message: same id, or the same object when ids are missing. */
function same(a: BaseMessage | undefined, b: BaseMessage | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  if (a === b) return true;
  return typeof a.id === "string" && a.id !== "" && a.id === b.id;
}
