import type { BaseMessage } from "@langchain/core/messages";
import {
  analysisText,
  CROSS_SCRIPT_WEIGHT,
  isContextMessage,
  messageText,
  messageType,
  NEAR_SPELLING_WEIGHT,
  QueryWidening,
  RELATED_WORD_WEIGHT,
  timestampTerms,
  tokenize,
} from "@threadwise/core";
import MiniSearch from "minisearch";

/** The query widening's weights and bound, core's (`query-widening.ts`), shared with fact recall. */
export { CROSS_SCRIPT_WEIGHT, NEAR_SPELLING_MIN_LETTERS, NEAR_SPELLING_WEIGHT, RELATED_WORD_WEIGHT } from "@threadwise/core";

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
 * {@link MessageIndex.sync} is called with the stored thread before each search and is exact
 * (spec R37): afterwards the index equals {@link MessageIndex.rebuild} of the stored thread in a
 * fresh index (same entries, positions, neighbours, search results and scores), whatever happened
 * to the thread. It compares every stored position with what was indexed there (the id; for an
 * indexed message its role, text, speaker name and timestamp; for any other, that it is still not
 * indexable): O(n) id and string comparisons, no tokenizing. When the thread extends what was
 * indexed (the usual case: new messages appended), only the new messages are tokenized and added:
 * O(new). When the oldest messages were deleted (persistTrim) and the rest is unchanged, their
 * entries are discarded: O(deleted). Any other difference (a message edited in place under its own
 * id, one removed in the middle, time travel to an older checkpoint, a thread imported again under
 * the same ids, another process's write) rebuilds the index from the stored thread, as after a
 * restart. At most `maxMessages` messages are kept: the newest indexable ones.
 */
export class MessageIndex {
  readonly #options: MessageIndexOptions;
  #mini = MessageIndex.#newMini();
  #entries: RecallEntry[] = [];
  #head = 0;
  #bySeq = new Map<number, RecallEntry>();
  #byId = new Map<string, RecallEntry>();
  /** Sequence number -> the entry's document length in MiniSearch (distinct tokens). */
  #lengths = new Map<number, number>();
  #nextSeq = 0;
  /** The key ({@link keyOf}) of every stored message seen by the last sync, by position. */
  #keys: string[] = [];
  /** Characters of the indexed texts (see {@link MessageIndex.characters}). */
  #characters = 0;
  /**
   * The indexed terms, keyed for the terms a query also meets (core's `QueryWidening`: the other
   * script's terms sharing a cross-script key, near spellings, related words). Exactly the terms
   * of the indexed messages: a term leaves it when the last message holding it is discarded
   * (`QueryWidening.removeDocument`), so whether a query term is held (near spellings and related words widen
   * only an unheld one) is a set lookup, the answer a fresh index of the stored thread gives.
   */
  readonly #widening = new QueryWidening();

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
      // Vacuumed by #vacuum, in one synchronous pass: MiniSearch's auto-vacuum pauses between
      // batches, and a message added during a pause breaks its walk of the term tree (an unhandled
      // rejection, which ends a Node process: minisearch issue 306; breaker fuzz seed 25).
      autoVacuum: false,
    });
  }

  /** Messages indexed. */
  get size(): number {
    return this.#entries.length - this.#head;
  }

  /**
   * Characters (UTF-16 code units) of the texts indexed, the measure recall bounds its held
   * indexes by: the index's heap grows with them (about 13 bytes per character on LoCoMo text,
   * MiniSearch's postings included; recall's README).
   */
  get characters(): number {
    return this.#characters;
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
    const n = this.#keys.length;
    if (n > 0) {
      if (stored.length >= n && this.#unchanged(stored, 0, 0, n)) {
        return { added: this.#append(stored, n), discarded: this.#bound(), rebuilt: false };
      }
      const trimmed = this.#afterHeadTrim(stored);
      if (trimmed) return trimmed;
    }
    return this.rebuild(stored);
  }

  /**
   * {@link sync} for a stored thread whose first `unchanged` positions are, as the caller vouches,
   * the messages the last sync saw there (an archive that only grows: issue 27), followed by
   * `tail`. Compares and indexes `tail` only: O(tail). Returns `undefined`, having changed
   * nothing, when `tail` does not extend what was indexed after those positions (a message
   * changed, removed or moved, a head trim, an index that saw fewer than `unchanged` positions):
   * call {@link sync} with the whole thread then.
   */
  syncTail(unchanged: number, tail: readonly BaseMessage[]): SyncResult | undefined {
    const n = this.#keys.length;
    if (unchanged === 0) return this.sync(tail);
    if (unchanged > n) return undefined;
    const compared = n - unchanged;
    if (tail.length < compared || !this.#unchanged(tail, 0, unchanged, compared, unchanged)) return undefined;
    return { added: this.#append(tail, compared, unchanged), discarded: this.#bound(), rebuilt: false };
  }

  /** Indexes `stored` from scratch (its newest `maxMessages` indexable messages), as after a restart. */
  rebuild(stored: readonly BaseMessage[]): SyncResult {
    const rebuilt = this.#keys.length > 0;
    this.#reset();
    let start = stored.length;
    let count = 0;
    while (start > 0 && count < this.#options.maxMessages) {
      start -= 1;
      if (this.#fieldsOf(stored[start] as BaseMessage) !== undefined) count += 1;
    }
    this.#keys = stored.slice(0, start).map(keyOf);
    const added = this.#append(stored, start);
    return { added, discarded: 0, rebuilt };
  }

  /**
   * BM25+ search for `terms` (already tokenized), best first, skipping entries for which `skip`
   * is true, at most `k` results.
   */
  search(terms: readonly string[], k: number, skip?: (entry: RecallEntry) => boolean): Array<{ entry: RecallEntry; score: number }> {
    if (terms.length === 0 || k <= 0 || this.size === 0) return [];
    const out: Array<{ entry: RecallEntry; score: number }> = [];
    const { crossed, near, related } = this.#widening.widen(terms, undefined, { related: true });
    const widened = crossed.size > 0 || near.size > 0 || related.size > 0;
    const query = widened ? [...terms, ...crossed, ...near, ...related] : terms;
    const options = widened
      ? {
          tokenize: (text: string) => text.split("\u0000"),
          boostTerm: (term: string) =>
            crossed.has(term) ? CROSS_SCRIPT_WEIGHT : near.has(term) ? NEAR_SPELLING_WEIGHT : related.has(term) ? RELATED_WORD_WEIGHT : 1,
        }
      : { tokenize: (text: string) => text.split("\u0000") };
    for (const hit of this.#mini.search(query.join("\u0000"), options)) {
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
    this.#lengths.clear();
    this.#keys = [];
    this.#characters = 0;
    this.#widening.clear();
  }

  /** What an entry of `message` holds besides its terms, or `undefined` when it is not indexed. */
  #fieldsOf(message: BaseMessage): IndexedFields | undefined {
    const role = roleOf(message);
    if (role === undefined) return undefined;
    // Quoted composed (NFC: the same text, so a message a client sent decomposed costs the block
    // what its plain text costs), never folded further: NFKC would quote `x²` as `x2` and drop the
    // joiners of an emoji sequence. Its terms are read in core's `analysisText` form (`tokenize`),
    // so it is found however it was encoded; a message of invisible characters only is not indexed.
    const text = messageText(message).normalize("NFC").trim();
    if (analysisText(text).trim() === "") return undefined;
    // AI messages carry the agent's name (createAgent sets it), not a speaker's.
    const name = role === "user" && typeof message.name === "string" && message.name !== "" ? message.name : undefined;
    const timestamp = (this.#options.timestampOf ?? timestampOf)(message);
    return { role, text, name, timestamp };
  }

  /**
   * Whether `stored[from + j]` is what was indexed at synced position `syncedFrom + j` (0-based),
   * for every `j < count`: same key; for an entry, the same position and fields; for any other
   * message, still not indexable, unless the index is full and the message is older than every
   * entry (a fresh index would not reach it either).
   */
  #unchanged(stored: readonly BaseMessage[], from: number, syncedFrom: number, count: number, offset = 0): boolean {
    const full = this.size >= this.#options.maxMessages;
    // Entries are in position order: walk them beside the positions (no lookup by id), from the
    // first one past `syncedFrom` (binary search: positions strictly increase).
    let next = this.#head;
    let end = this.#entries.length;
    while (next < end) {
      const mid = (next + end) >>> 1;
      if ((this.#entries[mid] as RecallEntry).position <= syncedFrom) next = mid + 1;
      else end = mid;
    }
    const oldest = full ? (this.#entries[this.#head] as RecallEntry).position : 0;
    for (let j = 0; j < count; j += 1) {
      const message = stored[from + j] as BaseMessage;
      const at = syncedFrom + j + 1;
      if (keyOf(message, offset + from + j) !== this.#keys[at - 1]) return false;
      const entry = this.#entries[next];
      if (entry?.position === at) {
        next += 1;
        const fields = this.#fieldsOf(message);
        if (
          fields === undefined ||
          fields.role !== entry.role ||
          fields.text !== entry.text ||
          fields.name !== entry.name ||
          fields.timestamp !== entry.timestamp
        ) {
          return false;
        }
      } else if (at >= oldest && this.#fieldsOf(message) !== undefined) return false;
    }
    return true;
  }

  /**
   * Indexes the indexable messages of `stored` from index `from` on, `stored[i]` standing at
   * 0-based position `offset + i` of the thread; records the keys.
   */
  #append(stored: readonly BaseMessage[], from: number, offset = 0): number {
    let added = 0;
    for (let i = from; i < stored.length; i += 1) {
      const message = stored[i] as BaseMessage;
      const key = keyOf(message, offset + i);
      this.#keys.push(key);
      const fields = this.#fieldsOf(message);
      if (fields === undefined || this.#byId.has(key)) continue;
      const { role, text, name, timestamp } = fields;
      const id = key;
      const terms = tokenize(text);
      const entry: RecallEntry = {
        seq: this.#nextSeq++,
        id,
        position: offset + i + 1,
        role,
        text,
        terms,
        ...(this.#options.countText ? { tokens: this.#options.countText(text) } : {}),
        ...(name ? { name } : {}),
        ...(timestamp ? { timestamp } : {}),
      };
      this.#entries.push(entry);
      this.#characters += text.length;
      this.#bySeq.set(entry.seq, entry);
      this.#byId.set(id, entry);
      const document = documentTerms(entry);
      this.#mini.add({ id: entry.seq, text: document.join("\u0000") });
      const distinct = new Set(document);
      this.#widening.addDocument(distinct);
      // The document's length as MiniSearch counts it (distinct tokens of the text it splits: an
      // empty text is one empty token), for #settleAverage.
      this.#lengths.set(entry.seq, document.length === 0 ? 1 : distinct.size);
      added += 1;
    }
    return added;
  }

  /** Drops the oldest entries past the bound; `settle` when entries were discarded before. */
  #bound(settle = false): number {
    let discarded = 0;
    while (this.size > this.#options.maxMessages) {
      this.#discardHead();
      discarded += 1;
    }
    this.#compact();
    if (discarded > 0) this.#vacuum();
    if (discarded > 0 || settle) this.#settleAverage();
    return discarded;
  }

  /**
   * MiniSearch keeps the average document length (a BM25 input) as a running mean, updated on each
   * add and discard, so after discards it differs from a fresh index's in the last bits (about
   * 1e-15 relative), enough to swap two nearly tied results. Sets it to the value a fresh index
   * of the same entries computes (the same running mean, over the entries oldest first): O(entries)
   * additions, no tokenizing. Term statistics need nothing: discarded documents are the oldest, so
   * MiniSearch meets their postings first and leaves them out of the document frequency before it
   * scores any kept document. If a MiniSearch version keeps the mean elsewhere, the engine is
   * rebuilt from the entries' terms instead (exact, O(terms)).
   */
  #settleAverage(): void {
    const internals = this.#mini as unknown as { _avgFieldLength?: unknown };
    let average = 0;
    let count = 0;
    for (let i = this.#head; i < this.#entries.length; i += 1) {
      const length = this.#lengths.get((this.#entries[i] as RecallEntry).seq) as number;
      average = (average * count + length) / (count + 1);
      count += 1;
    }
    if (Array.isArray(internals._avgFieldLength) && internals._avgFieldLength.length === 1) {
      internals._avgFieldLength[0] = average;
      return;
    }
    this.#mini = MessageIndex.#newMini();
    for (let i = this.#head; i < this.#entries.length; i += 1) {
      const entry = this.#entries[i] as RecallEntry;
      this.#mini.add({ id: entry.seq, text: documentTerms(entry).join("\u0000") });
    }
  }

  /**
   * Drops the postings of discarded entries once they are as many as the indexed ones (so the
   * index holds at most twice its entries' postings; one pass over the terms per that many
   * discards), in one pass nothing else touches the index during. Search results do not depend on it.
   */
  #vacuum(): void {
    if (this.#mini.dirtCount < this.#mini.documentCount) return;
    void this.#mini.vacuum({ batchSize: Number.MAX_SAFE_INTEGER });
  }

  #discardHead(): void {
    const entry = this.#entries[this.#head] as RecallEntry;
    this.#head += 1;
    this.#characters -= entry.text.length;
    this.#mini.discard(entry.seq);
    // Its terms no other indexed message holds leave the vocabulary (and the cross-script keys).
    this.#widening.removeDocument(documentTerms(entry));
    this.#lengths.delete(entry.seq);
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
   * The oldest `deleted` messages were deleted (persistTrim) and the rest is unchanged, new
   * messages possibly appended: discards the entries of deleted messages, shifts positions,
   * appends the new ones. `undefined` when the change is anything else (also a head trim together
   * with any other change, e.g. a `RemoveMessage` in the same run). O(n) comparisons.
   */
  #afterHeadTrim(stored: readonly BaseMessage[]): SyncResult | undefined {
    if (stored.length === 0) return undefined;
    const deleted = this.#keys.indexOf(keyOf(stored[0] as BaseMessage, 0));
    const kept = this.#keys.length - deleted;
    if (deleted <= 0 || stored.length < kept || !this.#unchanged(stored, 0, deleted, kept)) return undefined;
    let discarded = 0;
    while (this.size > 0 && (this.#entries[this.#head] as RecallEntry).position <= deleted) {
      this.#discardHead();
      discarded += 1;
    }
    for (let i = this.#head; i < this.#entries.length; i += 1) (this.#entries[i] as RecallEntry).position -= deleted;
    this.#keys = this.#keys.slice(deleted);
    const added = this.#append(stored, kept);
    return { added, discarded: discarded + this.#bound(discarded > 0), rebuilt: false };
  }
}

/** The fields of an entry that come from its message (the rest: terms, tokens, seq, position). */
interface IndexedFields {
  role: "user" | "assistant";
  text: string;
  name: string | undefined;
  timestamp: string | undefined;
}

/**
 * What an entry is searched by: its speaker's name (indexed with the text, as `Name: text` would
 * be), its text's terms, and the date terms of its timestamp (its month and year, and the months
 * its relative words such as "last month" or "지난달" point to; core's `timestampTerms`), so a
 * question about a time finds what was said then.
 */
function documentTerms(entry: RecallEntry): string[] {
  return [...(entry.name ? tokenize(entry.name) : []), ...entry.terms, ...timestampTerms(entry.timestamp, entry.text)];
}

/** A stored message's key in the index: its id, or its 1-based position when it has none. */
function keyOf(message: BaseMessage, index: number): string {
  return typeof message.id === "string" && message.id !== "" ? message.id : `position:${index + 1}`;
}
