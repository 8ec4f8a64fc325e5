import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { SummaryRecord } from "@threadwise/core";
import { describe, expect, it } from "vitest";
import { coverageIntact, coveredDigestsOf, coveredMessages } from "./summary-coverage.js";

const thread = (): BaseMessage[] => [
  new SystemMessage({ id: "s", content: "sys" }),
  new HumanMessage({ id: "u1", content: "my seat is 12A" }),
  new AIMessage({ id: "a1", content: "noted" }),
  new HumanMessage({ id: "u2", content: "and a window" }),
  new AIMessage({ id: "a2", content: "sure" }),
  new HumanMessage({ id: "u3", content: "thanks" }),
];
const recordOver = (stored: BaseMessage[], throughId: string): SummaryRecord => {
  const record: SummaryRecord = { text: "S", coveredThroughId: throughId, coveredCount: 4, updatedAt: "" };
  return { ...record, coveredDigests: coveredDigestsOf(coveredMessages(stored, record)) };
};

describe("coverageIntact (R37)", () => {
  it("holds for the thread it was made from, and after persistTrim deleted covered messages from the head", () => {
    const stored = thread();
    const record = recordOver(stored, "a2");
    expect(coveredMessages(stored, record).map((m) => m.id)).toEqual(["u1", "a1", "u2", "a2"]);
    expect(coverageIntact(record, coveredMessages(stored, record))).toBe(true);
    const trimmed = [stored[0] as BaseMessage, ...stored.slice(3)];
    expect(coverageIntact(record, coveredMessages(trimmed, record))).toBe(true);
  });

  it("fails after a covered message is edited in place (same length), removed from the middle, or one is inserted", () => {
    const stored = thread();
    const record = recordOver(stored, "a2");
    const edited = stored.map((m) => (m.id === "u1" ? new HumanMessage({ id: "u1", content: "my seat is 14C" }) : m));
    expect(coverageIntact(record, coveredMessages(edited, record))).toBe(false);
    const removed = stored.filter((m) => m.id !== "a1");
    expect(coverageIntact(record, coveredMessages(removed, record))).toBe(false);
    const inserted = [...stored.slice(0, 2), new HumanMessage({ id: "x", content: "x" }), ...stored.slice(2)];
    expect(coverageIntact(record, coveredMessages(inserted, record))).toBe(false);
  });

  it("takes a record without digests (written before them) as intact", () => {
    const stored = thread();
    expect(coverageIntact({ text: "S", coveredThroughId: "a2", coveredCount: 4, updatedAt: "" }, coveredMessages(stored, undefined))).toBe(
      true,
    );
  });
});
