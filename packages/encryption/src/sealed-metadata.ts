import { type CheckpointMetadata, TASKS } from "@langchain/langgraph-checkpoint";
import type { EncryptedSerializer } from "./encrypted-serializer.js";
import { PLAINTEXT_STORE_HINT, ThreadwiseDecryptionError } from "./errors.js";
import { metadataRecordId } from "./record-ids.js";

/** Key of the sealed copy of the whole metadata inside the stored metadata object. */
export const SEALED_METADATA_KEY = "__threadwise_sealed";

/**
 * Key, inside the sealed metadata only, of the checkpoint's manifest: its id, parent and channel
 * versions as written. The plaintext skeleton a saver returns is compared with it on every read,
 * so pointing a checkpoint at other versions (rollback) or another parent (splice) is detected.
 * Never returned to callers.
 */
export const MANIFEST_KEY = "__threadwise_manifest";

/** What a checkpoint looked like when it was sealed. */
export interface CheckpointManifest {
  id: string;
  parent: string | null;
  versions: Record<string, string>;
}

/**
 * The manifest of a checkpoint: versions as strings, keys sorted (savers may return numbers as
 * strings). `__pregel_tasks` is left out: savers rewrite it when they migrate checkpoints older
 * than format 4 on read.
 */
export function checkpointManifest(id: string, parent: unknown, versions: Record<string, unknown> | undefined): CheckpointManifest {
  const sorted = Object.keys(versions ?? {})
    .filter((channel) => channel !== TASKS)
    .sort();
  return {
    id,
    parent: typeof parent === "string" && parent !== "" ? parent : null,
    versions: Object.fromEntries(sorted.map((channel) => [channel, String(versions?.[channel])])),
  };
}

/** Metadata `source` values LangGraph writes; only these are kept in plaintext. */
const KNOWN_SOURCES = new Set(["input", "loop", "update", "fork"]);

/**
 * Checkpoint metadata as stored: the whole metadata sealed under {@link SEALED_METADATA_KEY}, plus
 * plaintext copies of `source` (a known LangGraph value) and `step` (an integer) so savers can still
 * filter on them in SQL. Everything else (user metadata from `config.metadata`, `writes` in older
 * LangGraph versions, run ids, counters) is only in the sealed copy (R28).
 */
export async function sealMetadata(
  serializer: EncryptedSerializer,
  metadata: CheckpointMetadata | undefined,
  where: { threadId: string; checkpointNs: string; checkpointId: string },
  manifest?: CheckpointManifest,
): Promise<CheckpointMetadata> {
  const value = (metadata ?? {}) as Record<string, unknown>;
  const stored: Record<string, unknown> = {};
  if (typeof value.source === "string" && KNOWN_SOURCES.has(value.source)) stored.source = value.source;
  if (Number.isInteger(value.step)) stored.step = value.step;
  const sealed = manifest ? { ...value, [MANIFEST_KEY]: manifest } : value;
  stored[SEALED_METADATA_KEY] = await serializer.sealTyped(sealed, "metadata", {
    threadId: where.threadId,
    recordId: metadataRecordId(where.checkpointNs, where.checkpointId),
  });
  return stored as unknown as CheckpointMetadata;
}

/**
 * Opens stored metadata written by {@link sealMetadata}. The sealed copy is authoritative; the
 * plaintext fields are ignored on read. With `expected` (the skeleton as read), the sealed
 * manifest must match it; metadata sealed before manifests existed has none and is accepted.
 * @throws ThreadwiseDecryptionError `plaintext-record` when the sealed copy is missing,
 *   `checkpoint-altered` when the manifest differs from `expected`.
 */
export async function openMetadata(
  serializer: EncryptedSerializer,
  stored: CheckpointMetadata | undefined,
  where: { threadId: string; checkpointNs: string; checkpointId: string },
  expected?: CheckpointManifest,
): Promise<CheckpointMetadata | undefined> {
  if (stored === undefined) return undefined;
  const location = { threadId: where.threadId, recordId: metadataRecordId(where.checkpointNs, where.checkpointId) };
  const sealed = (stored as Record<string, unknown>)[SEALED_METADATA_KEY];
  if (sealed === undefined)
    throw new ThreadwiseDecryptionError(
      "plaintext-record",
      location,
      `checkpoint metadata is not encrypted (refusing to read it): ${PLAINTEXT_STORE_HINT}`,
    );
  const opened = (await serializer.openTyped(sealed, "metadata", location)) as Record<string, unknown>;
  if (opened === null || typeof opened !== "object" || !(MANIFEST_KEY in opened)) return opened as CheckpointMetadata;
  const { [MANIFEST_KEY]: manifest, ...metadata } = opened;
  if (expected && JSON.stringify(manifest) !== JSON.stringify(expected)) {
    const written = manifest as CheckpointManifest;
    const changed = [
      written.id !== expected.id ? "id" : undefined,
      written.parent !== expected.parent ? "parent checkpoint" : undefined,
      JSON.stringify(written.versions) !== JSON.stringify(expected.versions) ? "channel versions" : undefined,
    ].filter(Boolean);
    throw new ThreadwiseDecryptionError(
      "checkpoint-altered",
      location,
      `the stored checkpoint's ${changed.join(", ") || "skeleton"} differ from what was sealed when it was written (rolled back or spliced); refusing to read other history`,
    );
  }
  return metadata as CheckpointMetadata;
}

/**
 * Splits a `list()` filter into the part the inner saver can evaluate on plaintext fields and
 * whether the rest must be checked after decryption.
 */
export function splitMetadataFilter(filter: Record<string, unknown> | undefined): {
  pushdown: Record<string, unknown> | undefined;
  postFilter: boolean;
} {
  if (filter === undefined) return { pushdown: undefined, postFilter: false };
  const pushdown: Record<string, unknown> = {};
  let postFilter = false;
  for (const [key, value] of Object.entries(filter)) {
    if (value === undefined) continue;
    if (key === "source" && typeof value === "string" && KNOWN_SOURCES.has(value)) pushdown.source = value;
    else if (key === "step" && Number.isInteger(value)) pushdown.step = value;
    else postFilter = true;
  }
  return { pushdown, postFilter };
}

/** `true` when every defined `filter` entry equals (as JSON) the same key of `metadata`. */
export function metadataMatches(metadata: CheckpointMetadata | undefined, filter: Record<string, unknown> | undefined): boolean {
  if (filter === undefined) return true;
  const value = (metadata ?? {}) as Record<string, unknown>;
  return Object.entries(filter).every(([key, expected]) => expected === undefined || canonical(value[key]) === canonical(expected));
}

function canonical(value: unknown): string {
  if (value === undefined) return "undefined";
  return JSON.stringify(value, (_key, inner) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}
