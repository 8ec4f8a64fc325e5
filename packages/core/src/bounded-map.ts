/**
 * Share of a full {@link setBounded} map evicted at once: one eighth of the bound, oldest first.
 * Unit: a fraction of `maxEntries`.
 */
export const BOUNDED_MAP_EVICTION_SHARE = 1 / 8;

/**
 * `map.set(key, value)` for a cache bounded at `maxEntries`, oldest entries (insertion order) out
 * first. When a new key would pass the bound, the oldest eighth ({@link BOUNDED_MAP_EVICTION_SHARE},
 * at least one entry) is deleted in one pass, so the map never holds more than `maxEntries`.
 *
 * Why not `map.delete(map.keys().next().value)` per insert: V8 keeps a deleted entry as a hole
 * until the table is rehashed, and `keys().next()` walks every hole before the first live key, so
 * evicting one entry per insert costs O(holes) each time (a 16,384-entry memo filled with 200,000
 * keys took 1.4 s that way, 0.07 s in batches). Amortized O(1) per insert here.
 *
 * @param maxEntries most entries kept (entries); values below 1 are taken as 1.
 * @example
 * const memo = new Map<string, number>();
 * setBounded(memo, text, tokens, 16_384);
 */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, maxEntries: number): void {
  const bound = Math.max(1, Math.floor(maxEntries));
  if (map.size >= bound && !map.has(key)) {
    const evict = Math.max(1, Math.floor(bound * BOUNDED_MAP_EVICTION_SHARE), map.size - bound + 1);
    let evicted = 0;
    for (const old of map.keys()) {
      map.delete(old);
      evicted += 1;
      if (evicted >= evict) break;
    }
  }
  map.set(key, value);
}

/**
 * Values per key (a thread's index, say) held least recently used first, bounded by their number
 * (`maxEntries`) and by the sum of their sizes (`maxSize`, in the caller's unit: characters,
 * facts). {@link SizedLru.get} and {@link SizedLru.set} make a key the newest; {@link SizedLru.resize}
 * records a key's size after it changed and lets the oldest others go while over either bound.
 * The key just resized is never evicted, so one value larger than `maxSize` is still held.
 * Eviction is oldest first, one entry at a time; a lookup is O(1).
 *
 * @example
 * const held = new SizedLru<string, MessageIndex>(10_000, 36_000_000);
 * const index = held.get(threadId) ?? held.set(threadId, new MessageIndex(options));
 * index.sync(stored);
 * held.resize(threadId, index.characters);
 */
export class SizedLru<K, V> {
  readonly #entries = new Map<K, { value: V; size: number }>();
  #total = 0;

  /**
   * @param maxEntries most values held (entries), at least 1.
   * @param maxSize most total size held (the caller's unit), checked by {@link SizedLru.resize}.
   */
  constructor(
    readonly maxEntries: number,
    readonly maxSize: number,
  ) {}

  /** Values held (entries). */
  get size(): number {
    return this.#entries.size;
  }

  /** Sum of the held values' sizes as last recorded. */
  get totalSize(): number {
    return this.#total;
  }

  /** The key's value, made the newest; `undefined` when not held. */
  get(key: K): V | undefined {
    const held = this.#entries.get(key);
    if (held === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, held);
    return held.value;
  }

  /** The key's value without making it the newest; `undefined` when not held. */
  peek(key: K): V | undefined {
    return this.#entries.get(key)?.value;
  }

  /** Holds `value` under `key` as the newest, with size 0 until {@link SizedLru.resize}; returns `value`. */
  set(key: K, value: V): V {
    const old = this.#entries.get(key);
    if (old !== undefined) {
      this.#total -= old.size;
      this.#entries.delete(key);
    }
    this.#entries.set(key, { value, size: 0 });
    this.#evict(key);
    return value;
  }

  /** Records `key`'s size (ignored when not held), then evicts the oldest others while over a bound. */
  resize(key: K, size: number): void {
    const held = this.#entries.get(key);
    if (held === undefined) return;
    this.#total += size - held.size;
    held.size = size;
    this.#evict(key);
  }

  #evict(keep: K): void {
    if (this.#entries.size <= Math.max(1, this.maxEntries) && this.#total <= this.maxSize) return;
    for (const [key, held] of this.#entries) {
      if (key === keep || (this.#entries.size <= Math.max(1, this.maxEntries) && this.#total <= this.maxSize)) break;
      this.#entries.delete(key);
      this.#total -= held.size;
    }
  }
}
