import { randomUUID } from "node:crypto";

/**
 * Makes the id of a message threadwise creates. Every such message gets one, so checkpointers
 * and the `messages` reducer can address it (replace, remove) and logs can point at it.
 * `kind` is a short tag such as `context` or `seed`.
 */
export function threadwiseMessageId(kind: string): string {
  return `tw-${kind}-${randomUUID()}`;
}
