import { countCharacters, truncateCharacters, type WorkMemoryEntry } from "@threadwise/core";

/** Limits of the work-memory envelope (spec R18). */
export interface EnvelopeLimits {
  /** Most entries kept. Unit: entries. */
  maxItems: number;
  /** Most characters over all entries' `text` (core's `countCharacters`: graphemes, as a user counts). Unit: characters. */
  maxCharacters: number;
}

/** What {@link boundEnvelope} decided. */
export interface BoundedEnvelope {
  /** The new entry as it is stored (shortened when it alone exceeded `maxCharacters`). */
  entry: WorkMemoryEntry;
  /** Ids of the entries kept, oldest first; the new entry's id is last. */
  keepIds: string[];
  /** The envelope after the update, oldest first. */
  entries: WorkMemoryEntry[];
  /** Total characters of `entries` (graphemes, core's `countCharacters`). */
  characters: number;
}

/**
 * Adds `entry` to the envelope and enforces the bounds (spec R18): at most `maxItems` entries and
 * at most `maxCharacters` characters in total; the oldest entries leave first. An entry with the
 * id of a stored one replaces it (merge by key). The new entry is always kept: when it alone is
 * longer than `maxCharacters` it is shortened to fit. Inputs are not mutated.
 *
 * @example
 * boundEnvelope([], { id: "r1", text: "안녕하세요", createdAt: "2026-01-01T00:00:00Z" }, { maxItems: 3, maxCharacters: 2000 });
 */
export function boundEnvelope(current: readonly WorkMemoryEntry[], entry: WorkMemoryEntry, limits: EnvelopeLimits): BoundedEnvelope {
  const stored: WorkMemoryEntry = { ...entry, text: truncateCharacters(entry.text, limits.maxCharacters) };
  const older = current.filter((e) => e.id !== stored.id);
  const kept: WorkMemoryEntry[] = [stored];
  let characters = countCharacters(stored.text);
  for (let i = older.length - 1; i >= 0 && kept.length < limits.maxItems; i -= 1) {
    const candidate = older[i] as WorkMemoryEntry;
    const size = countCharacters(candidate.text);
    // Oldest out first: once an entry does not fit, it and everything older leaves.
    if (characters + size > limits.maxCharacters) break;
    kept.unshift(candidate);
    characters += size;
  }
  return { entry: stored, keepIds: kept.map((e) => e.id), entries: kept, characters };
}

/** Renders the envelope as the text of the `work_memory` context block: one `- ` line per entry, oldest first. */
export function renderWorkMemory(entries: readonly WorkMemoryEntry[]): string {
  return entries
    .filter((e) => e.text.trim() !== "")
    .map((e) => `- ${e.text.trim().replace(/\n+/g, "\n  ")}`)
    .join("\n");
}
