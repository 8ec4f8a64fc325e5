/**
 * A user's statements across threads ordered by their messages' date lines, whatever the order
 * the threads committed in (session 66, data66): `statedAt` read `at` with `Date.parse`, which
 * reads ISO and `8 May, 2023` but not a Korean date line (`2023년 5월 8일 오후 1:56`) nor
 * LoCoMo's `1:56 pm on 8 May, 2023`, so such statements fell back to the commit's time and the
 * value committed last won. Now core's `parseTimestamp` reads them; a line it cannot read (no
 * date in it) still falls back to the commit's time.
 */

import { InMemoryStore } from "@langchain/langgraph";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { UserItemCodec } from "./user-item-codec.js";
import { statedAt } from "./user-items.js";
import { UserMemoryEngine } from "./user-memory-engine.js";
import { resolveUserMemoryOptions } from "./user-memory-options.js";
import { readUserItems } from "./user-store.js";

const scope = { tenantId: "default", userId: "u1" };
const engineOf = () => new UserMemoryEngine(resolveUserMemoryOptions({ env: {} }));

const CASES = [
  {
    lang: "en",
    older: "I live in Seoul.",
    newer: "I moved to Busan.",
    oldValue: "Seoul",
    newValue: "Busan",
    // [older statement's date line, newer statement's]: days apart, then hours apart on one day.
    dates: [
      ["1:56 pm on 8 May, 2023", "10:10 am on 20 May, 2023"],
      ["9:05 am on 8 May, 2023", "1:56 pm on 8 May, 2023"],
    ],
    question: "where do I live",
  },
  {
    lang: "ko",
    older: "저는 서울에 살아요.",
    newer: "부산으로 이사했어요.",
    oldValue: "서울",
    newValue: "부산",
    dates: [
      ["2023년 5월 8일 오후 1:56", "2023년 5월 20일 오전 10:10"],
      ["2023년 5월 8일 오전 11:20", "2023년 5월 8일 오후 1:56"],
    ],
    question: "어디 살아요",
  },
] as const;

/** The residence fact's values: current first, then superseded (newest first). */
async function residence(store: BaseStore): Promise<Array<string | undefined>> {
  const items = await readUserItems(store, scope, new UserItemCodec(), 100);
  const fact = items.find((item) => item.kind === "fact" && item.fact?.attribute === "residence");
  return fact ? [fact.fact?.value, ...(fact.superseded ?? []).map((v) => v.value)] : [];
}

describe("a user's statements across threads are ordered by their date lines, in any language", () => {
  for (const c of CASES)
    for (const [older, newer] of c.dates) {
      it(`${c.lang}: the newer statement (${newer}) wins though its thread committed first`, async () => {
        const store = new InMemoryStore();
        const engine = engineOf();
        await engine.commit(store, scope, {
          threadId: "B",
          messages: [{ id: "b1", text: c.newer, at: newer }],
          now: "2026-01-03T00:00:00.000Z",
        });
        await engine.commit(store, scope, {
          threadId: "A",
          messages: [{ id: "a1", text: c.older, at: older }],
          now: "2026-01-03T00:01:00.000Z",
        });
        expect(await residence(store)).toEqual([c.newValue, c.oldValue]);
        // What a fresh process recalls in a new thread.
        expect((await engineOf().recall(store, scope, { text: c.question, threadId: "C" })).text).toContain(c.newValue);
      });
    }

  it("reads a date line to the statement's time, and no time from a line without a date", () => {
    expect(statedAt({ at: "2023년 5월 8일 오후 1:56" })).toBe(Date.UTC(2023, 4, 8, 13, 56));
    expect(statedAt({ at: "1:56 pm on 8 May, 2023" })).toBe(Date.UTC(2023, 4, 8, 13, 56));
    expect(statedAt({ at: "어제 저녁" })).toBeUndefined();
    expect(statedAt({ at: "yesterday evening" })).toBeUndefined();
    // `saidAt` (to the millisecond) is read before `at`.
    expect(statedAt({ at: "2023년 5월 8일", saidAt: "2026-01-03T00:00:00.123Z" })).toBe(Date.parse("2026-01-03T00:00:00.123Z"));
  });

  for (const c of CASES)
    it(`${c.lang}: a line with no date falls back to the commit's time (the value committed last wins)`, async () => {
      const store = new InMemoryStore();
      const engine = engineOf();
      const at = c.lang === "en" ? "yesterday evening" : "어제 저녁";
      await engine.commit(store, scope, { threadId: "B", messages: [{ id: "b1", text: c.newer, at }], now: "2026-01-03T00:00:00.000Z" });
      await engine.commit(store, scope, { threadId: "A", messages: [{ id: "a1", text: c.older, at }], now: "2026-01-03T00:01:00.000Z" });
      expect(await residence(store)).toEqual([c.oldValue, c.newValue]);
    });
});
