import type { BaseMessage } from "@langchain/core/messages";

/**
 * Reads a thread's archived messages, oldest first (issue 27): messages that left the stored
 * thread (the checkpoint's `messages`) but are kept elsewhere, e.g. `@threadwise/memory`'s
 * `(threadId) => checkpointer.archivedMessages(threadId)`. Some may also still be stored (a crash
 * between the archive write and the checkpoint write); {@link withArchived} dedupes them.
 */
export type ArchivedMessagesReader = (threadId: string) => Promise<readonly BaseMessage[]>;

/**
 * The whole thread: `archived` then `stored`, each message once. An archived message whose id is
 * also stored is left out of the archived part: the stored copy wins, where it stands. Returns
 * `stored` itself when `archived` is empty. Pure; O(archived + stored).
 */
export function withArchived(archived: readonly BaseMessage[], stored: readonly BaseMessage[]): readonly BaseMessage[] {
  if (archived.length === 0) return stored;
  const inStore = new Set<string>();
  for (const message of stored) if (typeof message.id === "string") inStore.add(message.id);
  const out: BaseMessage[] = [];
  for (const message of archived) if (typeof message.id !== "string" || !inStore.has(message.id)) out.push(message);
  for (const message of stored) out.push(message);
  return out;
}
