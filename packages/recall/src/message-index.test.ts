import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tokenize } from "@threadwise/core";
import { describe, expect, it } from "vitest";
import { MessageIndex, timestampOf } from "./message-index.js";

const user = (id: string, content: string) => new HumanMessage({ id, content });
const ai = (id: string, content: string) => new AIMessage({ id, content });
const thread = (n: number): BaseMessage[] =>
  Array.from({ length: n }, (_, i) => (i % 2 === 0 ? user(`m${i}`, `user line ${i} apple${i}`) : ai(`m${i}`, `answer ${i}`)));
const ids = (index: MessageIndex) => index.entries().map((e) => e.id);
const found = (index: MessageIndex, query: string) => index.search(tokenize(query), 5).map((r) => r.entry.id);

describe("MessageIndex dates (issue 25)", () => {
  it("finds what was said in a month by the message's timestamp, and by a relative month in it", () => {
    const at = (id: string, content: string, timestamp: string) => new HumanMessage({ id, content, additional_kwargs: { timestamp } });
    const index = new MessageIndex({ maxMessages: 100 });
    index.sync([
      at("a", "We painted the fence", "1:56 pm on 8 May, 2023"),
      at("b", "We painted the shed", "3:10 pm on 2 July, 2023"),
      at("c", "I started pottery last month", "9:00 am on 3 July, 2023"),
      at("d", "울타리를 칠했어요", "2023년 5월 20일 오후 2시"),
    ]);
    expect(found(index, "What did they paint in May 2023?")).toEqual(["a", "b", "d", "c"]);
    expect(found(index, "What did I start in June?")[0]).toBe("c");
    expect(found(index, "5월에 뭐 칠했어요?")[0]).toBe("d");
  });
});

describe("MessageIndex.sync", () => {
  it("indexes only the new messages when the thread grows", () => {
    const index = new MessageIndex({ maxMessages: 100 });
    const messages = thread(6);
    expect(index.sync(messages.slice(0, 4))).toEqual({ added: 4, discarded: 0, rebuilt: false });
    expect(index.sync(messages)).toEqual({ added: 2, discarded: 0, rebuilt: false });
    expect(index.sync(messages)).toEqual({ added: 0, discarded: 0, rebuilt: false });
    expect(found(index, "apple4")).toEqual(["m4"]);
  });

  it("keeps at most maxMessages, the oldest leaving first", () => {
    const index = new MessageIndex({ maxMessages: 3 });
    const messages = thread(4);
    index.sync(messages.slice(0, 3));
    expect(index.sync(messages)).toEqual({ added: 1, discarded: 1, rebuilt: false });
    expect(ids(index)).toEqual(["m1", "m2", "m3"]);
    expect(found(index, "apple0")).toEqual([]);
    // A long thread read for the first time (a restart): only the newest maxMessages are indexed.
    const fresh = new MessageIndex({ maxMessages: 3 });
    expect(fresh.sync(thread(10)).added).toBe(3);
    expect(ids(fresh)).toEqual(["m7", "m8", "m9"]);
  });

  it("drops the entries of messages deleted from the head (persistTrim) and renumbers positions", () => {
    const index = new MessageIndex({ maxMessages: 100 });
    const messages = thread(6);
    index.sync(messages);
    const trimmed = [...messages.slice(2), user("m6", "user line 6 apple6")];
    expect(index.sync(trimmed)).toEqual({ added: 1, discarded: 2, rebuilt: false });
    expect(index.entries().map((e) => [e.id, e.position])).toEqual([
      ["m2", 1],
      ["m3", 2],
      ["m4", 3],
      ["m5", 4],
      ["m6", 5],
    ]);
    expect(found(index, "apple0")).toEqual([]);
  });

  it("rebuilds when a message in the middle was removed or the thread went back in time", () => {
    const index = new MessageIndex({ maxMessages: 100 });
    const messages = thread(6);
    index.sync(messages);
    const removed = messages.filter((m) => m.id !== "m2");
    expect(index.sync(removed)).toEqual({ added: 5, discarded: 0, rebuilt: true });
    expect(found(index, "apple2")).toEqual([]);
    // Time travel: an older checkpoint, then a different continuation.
    const older = [...messages.slice(0, 3), user("x", "another path")];
    expect(index.sync(older)).toEqual({ added: 4, discarded: 0, rebuilt: true });
    expect(found(index, "apple4")).toEqual([]);
    expect(found(index, "another path")).toEqual(["x"]);
  });

  // Found by test/stack.memo-equivalence.test.ts (seed 4): persistTrim trimmed the head in the same
  // run in which a RemoveMessage took a tool-call message out of the middle (or another process did
  // one of the two). The prefix path counted every missing message as part of the head, so it
  // discarded u2, which is still stored, and recall never found it again (a fresh index does).
  it("a head trim together with a deletion in the middle: the index equals a fresh one", () => {
    const call = new AIMessage({ id: "c", content: "", tool_calls: [{ id: "t1", name: "lookup", args: {} }] });
    const result = new ToolMessage({ id: "r", content: "ok", tool_call_id: "t1" });
    const index = new MessageIndex({ maxMessages: 100 });
    index.sync([user("u1", "I live in Seoul"), ai("a1", "Noted"), user("u2", "my dog Coco"), call, result]);
    // persistTrim took u1 and a1; a RemoveMessage took the call (its result stays, an orphan).
    const now = [user("u2", "my dog Coco"), result, ai("a3", "Cute"), user("u3", "what is my dog called")];
    expect(index.sync(now).rebuilt).toBe(true);
    const fresh = new MessageIndex({ maxMessages: 100 });
    fresh.sync(now);
    expect(index.entries().map((e) => [e.id, e.position])).toEqual(fresh.entries().map((e) => [e.id, e.position]));
    expect(found(index, "Coco")).toEqual(["u2"]);
    // A message deleted in the middle, the head trimmed too: it is never found again.
    const again = new MessageIndex({ maxMessages: 100 });
    const messages = thread(8);
    again.sync(messages);
    const cut = [...messages.slice(2, 5), ...messages.slice(6), user("m8", "user line 8 apple8")];
    again.sync(cut);
    expect(found(again, "apple6")).toEqual(["m6"]);
    expect(found(again, "answer 5")).not.toContain("m5");
    expect(again.entries().map((e) => [e.id, e.position])).toEqual(cut.map((m, i) => [m.id, i + 1]));
  });

  it("skips tool results and AI messages without text", () => {
    const index = new MessageIndex({ maxMessages: 100 });
    const call = new AIMessage({ id: "c", content: "", tool_calls: [{ id: "t1", name: "search", args: {} }] });
    index.sync([user("u", "find flights"), call, new ToolMessage({ id: "r", content: "BA123", tool_call_id: "t1" })]);
    expect(ids(index)).toEqual(["u"]);
  });
});

describe("timestampOf", () => {
  it("reads additional_kwargs.timestamp, then response_metadata.timestamp; strings as written, numbers as ISO", () => {
    expect(timestampOf(new HumanMessage({ content: "x", additional_kwargs: { timestamp: "1:56 pm on 8 May, 2023" } }))).toBe(
      "1:56 pm on 8 May, 2023",
    );
    expect(timestampOf(new AIMessage({ content: "x", response_metadata: { timestamp: Date.UTC(2026, 2, 2, 9, 15) } }))).toBe(
      "2026-03-02T09:15Z",
    );
    expect(timestampOf(new HumanMessage("x"))).toBeUndefined();
  });
});

describe("token counts at render, not at indexing (issue 21)", () => {
  it("a thread state's index counts no tokens, and its blocks equal those of an index that counted every message", async () => {
    const { createThreadRecallState, recallForQuery } = await import("./recall.js");
    const { resolveRecallOptions } = await import("./recall-options.js");
    const options = resolveRecallOptions({ maxTokens: 120, neighbours: 1 }, {});
    const counted: string[] = [];
    const countText = (text: string) => {
      counted.push(text);
      return Math.ceil(text.length / 3);
    };
    const messages = Array.from({ length: 60 }, (_, i) =>
      i % 2 === 0
        ? user(
            `m${i}`,
            `I told you about the ${i % 4 === 0 ? "harbour boat" : "garden shed"} on day ${i}. It was a long day. We painted it.`,
          )
        : ai(`m${i}`, `Noted: day ${i}, the ${i % 3 === 0 ? "boat" : "shed"}.`),
    );
    const lazy = createThreadRecallState(options);
    lazy.index.sync(messages);
    expect(counted).toEqual([]);
    expect(lazy.index.entries().every((entry) => entry.tokens === undefined)).toBe(true);
    const eager = createThreadRecallState(options);
    eager.index = new MessageIndex({ maxMessages: options.maxIndexedMessages, countText });
    eager.index.sync(messages);
    for (const query of ["Which boat was it?", "What did we paint in the garden shed?", "day 12"]) {
      const inView = new Set(messages.slice(-6).map((m) => m.id as string));
      const a = recallForQuery(lazy, { query, inView }, options, countText);
      const b = recallForQuery(eager, { query, inView }, options, countText);
      expect(a.text).not.toBe("");
      // The same block; the items differ only in the entries' `tokens` field (absent when not counted at indexing).
      const { items: itemsA, ...restA } = a;
      const { items: itemsB, ...restB } = b;
      expect(restA).toEqual(restB);
      expect(itemsA.map((item) => [item.kind, item.score, item.kind === "message" ? item.entry.id : item.fact.key])).toEqual(
        itemsB.map((item) => [item.kind, item.score, item.kind === "message" ? item.entry.id : item.fact.key]),
      );
    }
  });
});

describe("MessageIndex.characters (issue 21: recall bounds held indexes by it)", () => {
  it("is the characters of the indexed texts after appends, the bound, a head trim and a rebuild", () => {
    const held = (index: MessageIndex) => index.entries().reduce((n, entry) => n + entry.text.length, 0);
    const index = new MessageIndex({ maxMessages: 4 });
    const messages = thread(10);
    index.sync(messages.slice(0, 3));
    expect([index.characters, held(index)]).toEqual([held(index), index.characters]);
    expect(index.characters).toBeGreaterThan(0);
    index.sync(messages); // past the bound: the oldest left
    expect(index.size).toBe(4);
    expect(index.characters).toBe(held(index));
    index.sync(messages.slice(2)); // head trim
    expect(index.characters).toBe(held(index));
    index.sync([user("m0", "a new first message"), ...messages.slice(1)]); // edited in place: rebuilt
    expect(index.characters).toBe(held(index));
    index.sync([]);
    expect(index.characters).toBe(0);
  });
});

describe("MessageIndex with MiniSearch's vacuuming (breaker fuzz seed 25)", () => {
  it("messages added while a vacuum of discarded entries is under way leave no error behind", async () => {
    // Words sharing prefixes, so each add splits nodes of the term tree a paused vacuum walks.
    let state = 25;
    // mulberry32: random words over a to z, so the tree has long edges an add splits.
    const random = () => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const letters = "abcdefghijklmnopqrstuvwxyz";
    const word = () => Array.from({ length: 4 + Math.floor(random() * 6) }, () => letters[Math.floor(random() * letters.length)]).join("");
    const line = () => Array.from({ length: 200 }, word).join(" ");
    const messages = Array.from({ length: 400 }, (_, k) => user(`v${k}`, line()));
    const errors: unknown[] = [];
    const record = (error: unknown) => errors.push(error);
    process.on("unhandledRejection", record);
    try {
      const index = new MessageIndex({ maxMessages: 100 });
      // Each sync past the bound discards the oldest entries (MiniSearch's auto-vacuum starts), then
      // the next sync adds while it may be paused between batches.
      for (let n = 100; n <= messages.length; n += 50) {
        index.sync(messages.slice(0, n));
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(index.size).toBe(100);
    } finally {
      process.off("unhandledRejection", record);
    }
    expect(errors.map(String)).toEqual([]);
  });
});
