import type { BaseMessage } from "@langchain/core/messages";
import type { ArchiveCursor, ArchivedChanges, ArchivedChangesReader } from "@threadwise/core";
import type { MessageIndex, SyncResult } from "./message-index.js";

/**
 * What recall keeps of one thread's archive (issue 27) so that syncing its index with the whole
 * thread (the archived messages, then the stored ones, an archived message also stored counted
 * once, where it is stored: core's `withArchived`) costs the rows archived since the last call and
 * the stored part, not the whole archive: the reader's cursor, every archived id's position, and
 * the archived messages from the first one still stored on (usually the newest batch, until the
 * checkpoint that removes it is stored).
 *
 * Exact (spec R37): the archive only grows while the reader says `appended`, so the thread's
 * positions before the first archived message that is stored now or was stored at the last sync
 * are the messages the index saw there; {@link MessageIndex.syncTail} compares and indexes the
 * rest. Anything else (a rewrite or deletion, a row written again, another reader's cursor, a
 * thread that no longer extends what was indexed, a failed sync) reads the whole archive and
 * syncs the whole thread, as a fresh process does.
 */
export class ArchiveMirror {
  #cursor: ArchiveCursor | undefined;
  /** Archived messages read, in archive order. */
  #count = 0;
  /** Archived message id -> its 0-based position in the archive (the first, if repeated). */
  #positions = new Map<string, number>();
  #idCharacters = 0;
  /** The archived messages from position `#suffixStart` on. */
  #suffix: BaseMessage[] = [];
  #suffixStart = 0;
  /** At the last sync: the first archive position whose message was stored (else the archive's length). */
  #cut = 0;

  /** Characters of the archived ids held (what this adds to a held thread's size). */
  get characters(): number {
    return this.#idCharacters;
  }

  /**
   * Reads what the archive gained (`read`) and syncs `index` with the whole thread: the archive,
   * then `stored` (the checkpoint's messages). Afterwards `index` is what
   * `index.sync(withArchived(archive, stored))` leaves. O(archived since + stored) when the
   * archive was appended to; O(archive + stored) otherwise.
   * @throws whatever `read` or the index throws; the next call then reads the whole archive.
   */
  async sync(index: MessageIndex, read: ArchivedChangesReader, threadId: string, stored: readonly BaseMessage[]): Promise<SyncResult> {
    for (;;) {
      const asked = this.#cursor;
      const changes = await read(threadId, asked);
      // Another call of this thread moved the mirror while this one read: read from where it is.
      if (this.#cursor !== asked) continue;
      try {
        const whole = asked === undefined || !changes.appended;
        this.#take(changes, whole);
        const inStore = new Set<string>();
        let cut = this.#count;
        for (const message of stored) {
          if (typeof message.id !== "string") continue;
          inStore.add(message.id);
          const position = this.#positions.get(message.id);
          if (position !== undefined && position < cut) cut = position;
        }
        const from = whole ? 0 : Math.min(cut, this.#cut);
        if (from < this.#suffixStart) {
          // A stored message archived before what is kept (a branch holding old archived messages again).
          this.#reset();
          continue;
        }
        const tail: BaseMessage[] = [];
        for (let i = from - this.#suffixStart; i < this.#suffix.length; i += 1) {
          const message = this.#suffix[i] as BaseMessage;
          if (typeof message.id !== "string" || !inStore.has(message.id)) tail.push(message);
        }
        for (const message of stored) tail.push(message);
        const result = index.syncTail(from, tail);
        if (result === undefined) {
          // Not an extension of what was indexed: the whole thread, from the whole archive.
          this.#reset();
          continue;
        }
        this.#cut = cut;
        this.#suffix = this.#suffix.slice(cut - this.#suffixStart);
        this.#suffixStart = cut;
        return result;
      } catch (error) {
        this.#reset();
        throw error;
      }
    }
  }

  /** Takes what `read` returned: the whole archive (`whole`), or messages appended to it. */
  #take(changes: ArchivedChanges, whole: boolean): void {
    if (whole) {
      this.#reset();
      this.#suffix = [...changes.messages];
    } else for (const message of changes.messages) this.#suffix.push(message);
    for (const message of changes.messages) {
      if (typeof message.id === "string" && !this.#positions.has(message.id)) {
        this.#positions.set(message.id, this.#count);
        this.#idCharacters += message.id.length;
      }
      this.#count += 1;
    }
    this.#cursor = changes.cursor;
  }

  #reset(): void {
    this.#cursor = undefined;
    this.#count = 0;
    this.#positions = new Map();
    this.#idCharacters = 0;
    this.#suffix = [];
    this.#suffixStart = 0;
    this.#cut = 0;
  }
}
