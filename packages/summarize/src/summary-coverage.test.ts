import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { SummaryRecord } from "@threadwise/core";
import { describe, expect, it } from "vitest";
import {
  coverageIntact,
  coverageRemoved,
  coveredDigestsOf,
  coveredDigestsWith,
  coveredMessages,
  newestUserId,
  reachesBeforeDigests,
} from "./summary-coverage.js";

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

describe("coverageIntact after a rewrite of an archived thread (issue 27, R37)", () => {
  // u1, a1, u2 archived; the record made then keeps the digests of the newest archived message (u2)
  // and of the covered hot ones (a2). A rewrite (REMOVE_ALL_MESSAGES, then the thread from a1 on)
  // emptied the archive and brought a1 and u2 back; its marker kept the digests of u1, a1, u2.
  const whole = thread().slice(1);
  const [, a1, u2, a2, u3] = whole as [BaseMessage, BaseMessage, BaseMessage, BaseMessage, BaseMessage];
  const record: SummaryRecord = {
    text: "S",
    coveredThroughId: "a2",
    coveredCount: 4,
    updatedAt: "",
    coveredDigests: coveredDigestsOf([u2, a2]),
    coveredArchived: true,
  };
  const cleared = coveredDigestsOf(whole.slice(0, 3));
  const rewritten = [a1, u2, a2, u3];

  it("the messages brought back unchanged: intact with the rewrite's digests, as the record of a thread that never archived", () => {
    const covered = coveredMessages(rewritten, record);
    expect(covered.map((m) => m.id)).toEqual(["a1", "u2", "a2"]);
    expect(reachesBeforeDigests(record, covered)).toBe(true);
    expect(coveredDigestsWith(record, cleared)).toBe(coveredDigestsOf(whole.slice(0, 4)));
    expect(coverageIntact(record, covered, cleared)).toBe(true);
    // Without them (a saver that keeps none) it cannot tell: the summary is made again.
    expect(coverageIntact(record, covered)).toBe(false);
  });

  it("one brought back edited, or one left out of the middle: not intact", () => {
    const edited = rewritten.map((m) => (m.id === "a1" ? new AIMessage({ id: "a1", content: "noted twice" }) : m));
    expect(coverageIntact(record, coveredMessages(edited, record), cleared)).toBe(false);
    const removed = rewritten.filter((m) => m.id !== "u2");
    expect(coverageIntact(record, coveredMessages(removed, record), cleared)).toBe(false);
  });

  it("digests of another archive (a rewrite before the record was made) are not used", () => {
    const other = coveredDigestsOf([new HumanMessage({ id: "v1", content: "x" }), a1]);
    expect(coveredDigestsWith(record, other)).toBe(record.coveredDigests);
    expect(coverageIntact(record, coveredMessages(rewritten, record), other)).toBe(false);
  });

  it("a record written before `coveredArchived` existed is read as before: the rewrite's digests are not used", () => {
    const { coveredArchived: _, ...old } = record;
    expect(reachesBeforeDigests(old, coveredMessages(rewritten, old))).toBe(false);
    expect(coveredDigestsWith(old, cleared)).toBe(old.coveredDigests);
    expect(coverageIntact(old, coveredMessages(rewritten, old), cleared)).toBe(false);
    expect(coverageIntact(old, coveredMessages([a2, u3], old), cleared)).toBe(true);
  });
});

describe("coverageRemoved (R37, langgraphjs#1211)", () => {
  const record: SummaryRecord = { text: "S", coveredThroughId: "a2", coveredCount: 4, updatedAt: "", coveredUserId: "u2" };

  it("newestUserId: the newest user message with an id, else the fallback", () => {
    expect(newestUserId(thread())).toBe("u3");
    expect(newestUserId(thread().slice(0, 5))).toBe("u2");
    expect(newestUserId([new AIMessage({ id: "a", content: "x" })], "u0")).toBe("u0");
    expect(newestUserId([])).toBeUndefined();
  });

  it("false while the boundary is stored, however many older covered messages left", () => {
    expect(coverageRemoved(thread(), record, undefined)).toBe(false);
    expect(coverageRemoved(thread().slice(4), record, undefined)).toBe(false);
  });

  it("true once the boundary is gone and the trim mark does not name the newest covered user message", () => {
    const rest = [new HumanMessage({ id: "fresh", content: "새로 시작해요" })];
    expect(coverageRemoved(rest, record, undefined)).toBe(true);
    expect(coverageRemoved(rest, record, { taken: ["u1"], before: null })).toBe(true);
    expect(coverageRemoved(rest, record, { taken: ["u1", "u2"], before: null })).toBe(false);
    expect(coverageRemoved(rest, record, { taken: ["u9"], before: "u2" })).toBe(false);
  });

  it("false when it cannot be told: no record, one covering nothing, no boundary id, no coveredUserId", () => {
    const rest = [new HumanMessage({ id: "fresh", content: "start over" })];
    expect(coverageRemoved(rest, undefined, undefined)).toBe(false);
    expect(coverageRemoved(rest, { ...record, coveredCount: 0 }, undefined)).toBe(false);
    expect(coverageRemoved(rest, { ...record, coveredThroughId: null }, undefined)).toBe(false);
    const { coveredUserId: _, ...old } = record;
    expect(coverageRemoved(rest, old, undefined)).toBe(false);
  });
});
