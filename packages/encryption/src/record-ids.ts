/**
 * Record ids bound into the AAD of each sealed record (R27). Each names where the record lives
 * inside its thread, as the inner saver keys it, so the same id can be rebuilt on read and by
 * `reencrypt` from the stored row alone. JSON arrays, so no separator can be forged.
 */

/** A channel value: keyed by namespace, channel and version (PostgresSaver shares one blob per version across checkpoints). */
export function channelValueRecordId(checkpointNs: string, channel: string, version: unknown): string {
  return JSON.stringify(["channel-value", checkpointNs, channel, version === undefined || version === null ? "" : String(version)]);
}

/**
 * A pending write: keyed by namespace, checkpoint, task and channel. The write index is not part of
 * it because savers do not return it on read; two writes of one task to one channel of one
 * checkpoint can therefore be swapped with each other undetected (documented in ARCHITECTURE.md).
 */
export function pendingWriteRecordId(checkpointNs: string, checkpointId: string, taskId: string, channel: string): string {
  return JSON.stringify(["pending-write", checkpointNs, checkpointId, taskId, channel]);
}

/** The metadata of one checkpoint. */
export function metadataRecordId(checkpointNs: string, checkpointId: string): string {
  return JSON.stringify(["metadata", checkpointNs, checkpointId]);
}
