import type { TrimMark } from "@threadwise/core";
import { extractFactsHeuristic } from "@threadwise/fact-recall";
import { describe, expect, it } from "vitest";
import { itemBytes, planUserWrite, type UserItem, type WritePlanSettings } from "./user-items.js";
import { namespaceLabel, userNamespace } from "./user-scope.js";

const owner = { tenantId: "t", userId: "u" };
const settings = (over: Partial<WritePlanSettings> = {}): WritePlanSettings => ({
  maxItems: 1000,
  maxBytes: 1_000_000,
  keepMessages: true,
  maxMessageCharacters: 2000,
  extract: async (m) => ({ facts: extractFactsHeuristic(m.text), origin: "heuristic" }),
  ...over,
});
const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();

/** Applies commits one after another, as the store would hold them. */
async function replay(turns: Array<{ threadId: string; text: string; digest?: string }>, over: Partial<WritePlanSettings> = {}) {
  const stored = new Map<string, UserItem>();
  for (const [i, turn] of turns.entries()) {
    const plan = await planUserWrite(
      [...stored.values()],
      { threadId: turn.threadId, messages: [{ id: `m${i}`, text: turn.text }], digest: turn.digest, now: at(i) },
      owner,
      settings(over),
    );
    for (const key of plan.deletes) stored.delete(key);
    for (const item of plan.puts) stored.set(item.key, item);
  }
  return [...stored.values()];
}

describe("planUserWrite", () => {
  it("keeps at most maxItems: the oldest messages leave first, facts last", async () => {
    const turns = Array.from({ length: 30 }, (_, i) => ({ threadId: `t${i % 3}`, text: `note number ${i} about gardening` }));
    const items = await replay([{ threadId: "t0", text: "I live in Seoul." }, ...turns], { maxItems: 10 });
    expect(items).toHaveLength(10);
    expect(items.filter((item) => item.kind === "fact").map((item) => item.fact?.value)).toEqual(["Seoul"]);
    const kept = items.filter((item) => item.kind === "message").map((item) => item.text);
    expect(kept).toEqual(Array.from({ length: 9 }, (_, i) => `note number ${21 + i} about gardening`));
  });

  it("keeps at most maxBytes", async () => {
    const turns = Array.from({ length: 20 }, (_, i) => ({ threadId: "t", text: `${"x".repeat(200)} ${i}` }));
    const items = await replay(turns, { maxBytes: 2000 });
    expect(items.reduce((sum, item) => sum + itemBytes(item), 0)).toBeLessThanOrEqual(2000);
    expect(items.length).toBeGreaterThan(0);
    expect(items.at(-1)?.text.endsWith(" 19")).toBe(true);
  });

  it("a retried commit of the same message adds nothing; a digest is replaced in place", async () => {
    const once = await replay([{ threadId: "t", text: "I moved to Busan.", digest: "first" }]);
    const stored = new Map(once.map((item) => [item.key, item]));
    const again = await planUserWrite(
      once,
      { threadId: "t", messages: [{ id: "m0", text: "I moved to Busan." }], digest: "second", now: at(5) },
      owner,
      settings(),
    );
    expect(again.deletes).toEqual([]);
    expect(again.puts.map((item) => item.kind)).toEqual(["digest"]);
    expect(again.puts[0]?.key).toBe([...stored.values()].find((item) => item.kind === "digest")?.key);
  });

  // Code points cut inside an emoji sequence (the stored message ended in a man and a dangling
  // joiner) and counted a decomposed Korean syllable (NFD, as macOS sends it) as three characters.
  it("cuts a long message at maxMessageCharacters as a user counts characters: never inside an emoji or a syllable", async () => {
    const family = "\u{1F468}\u200D\u{1F469}\u200D\u{1F467}";
    const stored = async (text: string, maxMessageCharacters: number) =>
      (await replay([{ threadId: "t", text }], { maxMessageCharacters })).find((item) => item.kind === "message")?.text;
    expect(await stored(family.repeat(3), 3)).toBe(family.repeat(3));
    expect(await stored(family.repeat(4), 3)).toBe(`${family}${family}…`);
    const nfd = "부산에 살아요".normalize("NFD");
    expect(await stored(nfd, 7)).toBe(nfd);
  });
});

describe("planUserWrite: a message edited by id", () => {
  /** Commits `turns` in order (each its messages and the thread as it reads then) and returns what is stored. */
  async function commits(
    turns: Array<{ messages: Array<{ id: string; text: string }>; thread?: Record<string, string>; trimmed?: TrimMark }>,
    trims?: boolean,
  ) {
    const stored = new Map<string, UserItem>();
    for (const [i, turn] of turns.entries()) {
      const plan = await planUserWrite(
        [...stored.values()],
        {
          threadId: "t",
          messages: turn.messages,
          now: at(i),
          ...(turn.thread ? { current: (id: string) => (turn.thread?.[id] ? { id, text: turn.thread[id] } : undefined) } : {}),
          ...(trims === undefined ? {} : { trims }),
          ...(turn.trimmed ? { trimmed: turn.trimmed } : {}),
        },
        owner,
        settings(),
      );
      for (const key of plan.deletes) stored.delete(key);
      for (const item of plan.puts) stored.set(item.key, item);
    }
    const items = [...stored.values()];
    return {
      messages: items.filter((item) => item.kind === "message").map((item) => item.text),
      facts: items.filter((item) => item.kind === "fact").map((item) => `${item.fact?.attribute}=${item.fact?.value}`),
      superseded: items.flatMap((item) => item.superseded ?? []).map((value) => value.value),
      history: items.flatMap((item) => [item.fact?.previousValue, ...(item.fact?.history ?? []).map((h) => h.value)]).filter(Boolean),
    };
  }

  // A fork that sent the same id with other words (a regenerated turn): the stored message and its
  // fact kept the first words for good, and every other thread of the user was told "Seoul".
  it("sent again with other words (a fork, a regenerated turn): the new words and their fact replace the old ones, with no trace", async () => {
    const after = await commits([
      { messages: [{ id: "m0", text: "I live in Seoul." }] },
      { messages: [{ id: "m0", text: "I live in Busan." }] },
    ]);
    expect(after.messages).toEqual(["I live in Busan."]);
    expect(after.facts.join()).toContain("Busan");
    expect(after.facts.join()).not.toContain("Seoul");
    expect(after.superseded).toEqual([]);
    expect(after.history).toEqual([]);
  });

  it("edited in place (updateState by id) before a later turn: the item follows, a fact the new words do not state goes", async () => {
    const after = await commits([
      { messages: [{ id: "m0", text: "My dog is Coco." }] },
      { messages: [{ id: "m1", text: "hello again" }], thread: { m0: "I like green tea.", m1: "hello again" } },
    ]);
    expect(after.messages.sort()).toEqual(["I like green tea.", "hello again"]);
    expect(after.facts.join()).not.toContain("Coco");
    expect(after.facts.join()).toContain("tea");
  });

  it("a real change of value in a later message still supersedes; an unchanged thread writes nothing more", async () => {
    const after = await commits([
      { messages: [{ id: "m0", text: "I live in Seoul." }] },
      { messages: [{ id: "m1", text: "I moved to Busan." }], thread: { m0: "I live in Seoul.", m1: "I moved to Busan." } },
      { messages: [{ id: "m1", text: "I moved to Busan." }], thread: { m0: "I live in Seoul.", m1: "I moved to Busan." } },
    ]);
    expect(after.superseded).toEqual(["Seoul"]);
    expect(after.messages).toEqual(["I live in Seoul.", "I moved to Busan."]);
  });

  // RemoveMessage (or an edit that drops a message) before a later turn: the message and its fact
  // stayed in user memory, recalled in the user's other threads.
  it("removed from the thread while an older message stays: its item and the fact it stated go", async () => {
    const after = await commits([
      { messages: [{ id: "m0", text: "hello there" }] },
      { messages: [{ id: "m1", text: "My locker code is ZEBRA-42. I live in Seoul." }] },
      { messages: [{ id: "m2", text: "thanks" }], thread: { m0: "hello there", m2: "thanks" } },
    ]);
    expect(after.messages.sort()).toEqual(["hello there", "thanks"]);
    expect(after.facts.join()).not.toContain("Seoul");
  });

  it("gone with every older message (a trim or the archive takes the oldest first): kept", async () => {
    const after = await commits([
      { messages: [{ id: "m0", text: "I live in Seoul." }] },
      { messages: [{ id: "m1", text: "My dog is Coco." }] },
      { messages: [{ id: "m2", text: "thanks" }], thread: { m1: "My dog is Coco.", m2: "thanks" } },
    ]);
    expect(after.messages.sort()).toEqual(["I live in Seoul.", "My dog is Coco.", "thanks"]);
    expect(after.facts.join()).toContain("Seoul");
  });

  it("with trims: false (nothing deletes the thread's oldest messages), gone with every older one was removed: its item and fact go", async () => {
    const turns = [
      { messages: [{ id: "m0", text: "저는 서울에 살아요." }] },
      { messages: [{ id: "m1", text: "My dog is Coco." }] },
      { messages: [{ id: "m2", text: "thanks" }], thread: { m1: "My dog is Coco.", m2: "thanks" } },
    ];
    const after = await commits(turns, false);
    expect(after.messages.sort()).toEqual(["My dog is Coco.", "thanks"]);
    expect(after.facts.join()).not.toContain("서울");
    expect((await commits(turns, true)).facts.join()).toContain("서울");
  });

  // memoryStack: persistTrim and the archive name what they took (the summary slot's `trimmed`).
  it("with trims: false and the trim mark, a message it names (or older) stays; an oldest one it does not name was removed", async () => {
    const turns = (trimmed: TrimMark | undefined) => [
      { messages: [{ id: "m0", text: "My sister Hana lives in Jeju." }] },
      { messages: [{ id: "m1", text: "제 남동생 민호는 대구에 살아요." }] },
      { messages: [{ id: "m2", text: "thanks" }] },
      // m0 and m1 gone: the mark says which the trim took.
      { messages: [{ id: "m3", text: "ok" }], thread: { m2: "thanks", m3: "ok" }, ...(trimmed ? { trimmed } : {}) },
    ];
    const both = await commits(turns({ taken: ["m1"], before: null }), false);
    expect(both.messages.sort()).toEqual(["My sister Hana lives in Jeju.", "ok", "thanks", "제 남동생 민호는 대구에 살아요."]);
    const one = await commits(turns({ taken: ["x", "m0"], before: null }), false);
    expect(one.messages.sort()).toEqual(["My sister Hana lives in Jeju.", "ok", "thanks"]);
    expect(one.facts.join()).toContain("Jeju");
    expect(one.facts.join()).not.toContain("대구");
    expect((await commits(turns(undefined), false)).facts.join()).not.toMatch(/Jeju|대구/);
  });
});

describe("namespaces", () => {
  it("escape ids so no store's prefix search or label rule can join two users", () => {
    expect(namespaceLabel("user-42")).toBe("user-42");
    expect(namespaceLabel("a.b:c_d%e")).toBe("a~2Eb~3Ac~5Fd~25e");
    expect(namespaceLabel("민수")).toBe("~EB~AF~BC~EC~88~98");
    expect(new Set(["a:b", "a~3Ab", "a.b"].map(namespaceLabel)).size).toBe(3);
    const u1 = userNamespace({ tenantId: "t", userId: "u1" }).join(":");
    const u10 = userNamespace({ tenantId: "t", userId: "u10" }).join(":");
    expect(u10.startsWith(u1)).toBe(false);
  });
});
