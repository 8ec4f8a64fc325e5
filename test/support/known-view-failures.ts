/**
 * KNOWN FAILURES of the view contract (issue 12), found by the strict provider validator in
 * `test/stack.provider.property.test.ts` and the tau-bench agent sweeps, reported to the lead and
 * not fixed at the time of writing. The tests count them and fail on anything else; a test in each
 * suite fails once none of them occurs any more, so that this list is removed, not forgotten.
 *
 * - `first-not-user`: the first non-system message sent is not a user message: a window or a
 *   summary starts the view on an AI group while `startOn` is `"any"` (the default), or the stored
 *   thread starts on an AI message. Anthropic (`messages: first message must use the "user"
 *   role`), Gemini and Bedrock refuse it.
 * - `user-after-results`: tool results followed directly by a user message (a run that ended
 *   after its tools and before an answer); Bedrock Converse receives two user messages in a row.
 *   The rule is right: `convertToConverseMessages` of @langchain/aws 1.4.5
 *   (`dist/utils/message_inputs.js`) maps a ToolMessage to a `user` message holding a
 *   `toolResult` and merges two consecutive user messages only when both hold a `toolResult`;
 *   a HumanMessage after results stays a second `user` message, which Converse refuses (roles
 *   must alternate).
 * - `start-past-coverage`: the view starts after the summary's first uncovered message, so
 *   messages between them are in neither the summary nor the view.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { messageType } from "@threadwise/core";
import type { ProviderViolation } from "@threadwise/core/testing";

export type KnownViewFailure = "first-not-user" | "user-after-results" | "start-past-coverage";

export const KNOWN_VIEW_FAILURES: readonly KnownViewFailure[] = ["first-not-user", "user-after-results", "start-past-coverage"];

/**
 * The known failure a refusal belongs to, else `undefined` (a new failure: the test fails).
 */
export function knownRefusal(violation: ProviderViolation, sent: readonly BaseMessage[]): KnownViewFailure | undefined {
  if (violation.rule === "first_message_role") return "first-not-user";
  const previous = sent[violation.index - 1];
  if (violation.rule === "consecutive_roles" && violation.provider === "bedrock" && previous && messageType(previous) === "tool")
    return "user-after-results";
  return undefined;
}

/** Occurrences and cases per known failure. */
export type KnownCounts = Record<KnownViewFailure, { occurrences: number; cases: number }>;

export function emptyKnownCounts(): KnownCounts {
  return Object.fromEntries(KNOWN_VIEW_FAILURES.map((k) => [k, { occurrences: 0, cases: 0 }])) as KnownCounts;
}
