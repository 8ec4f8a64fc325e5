import { createTokenCounter } from "@threadwise/core";
import { resolveRecallOptions } from "@threadwise/recall";
import { describe, expect, it } from "vitest";
import { messageItemKey, type UserItem } from "./user-items.js";
import { renderUserRecall, UserRecallIndex } from "./user-recall.js";

const options = resolveRecallOptions({ maxTokens: 400 }, {});
const counter = createTokenCounter();
const countText = (text: string) => counter.countText(text);

function messageItem(messageId: string, text: string, updatedAt: string): UserItem {
  return {
    v: 1,
    kind: "message",
    key: messageItemKey("t-old", messageId),
    tenantId: "acme",
    userId: "u1",
    text,
    threadId: "t-old",
    messageId,
    at: "2026-03-02T09:00:00.000Z",
    storedAt: "2026-03-02T09:00:00.000Z",
    updatedAt,
  };
}

// The oracle: a process that never saw the user renders from the items it reads.
describe("user recall index: an item rewritten under the same key and updatedAt", () => {
  for (const [lang, before, after, query] of [
    ["en", "My cat is called Mochi.", "My cat is called Dubu.", "What is my cat called?"],
    ["ko", "우리 고양이 이름은 모찌예요.", "우리 고양이 이름은 두부예요.", "우리 고양이 이름이 뭐였죠?"],
  ] as const) {
    it(`indexes the text the item holds now, as a fresh index does (${lang})`, () => {
      const index = new UserRecallIndex(options);
      const stamp = "2026-03-02T09:00:00.000Z";
      const first = [messageItem("m1", before, stamp)];
      expect(renderUserRecall(index, first, query, "t-new", options, countText).text).toContain(before);

      // Two writes within one millisecond (or an item of another store under the same key).
      const second = [messageItem("m1", after, stamp)];
      const fresh = renderUserRecall(new UserRecallIndex(options), second, query, "t-new", options, countText);
      const reused = renderUserRecall(index, second, query, "t-new", options, countText);
      expect(reused.text).toBe(fresh.text);
      expect(reused.text).toContain(after);
    });
  }
});
