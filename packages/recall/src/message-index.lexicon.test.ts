import { HumanMessage } from "@langchain/core/messages";
import { tokenize } from "@threadwise/core";
import { describe, expect, it } from "vitest";
import { MessageIndex, RELATED_WORD_WEIGHT } from "./message-index.js";

const user = (id: string, content: string, name?: string) => new HumanMessage({ id, content, ...(name ? { name } : {}) });
const found = (index: MessageIndex, query: string) => index.search(tokenize(query), 5).map((r) => r.entry.id);
const indexOf = (messages: HumanMessage[]) => {
  const index = new MessageIndex({ maxMessages: 100 });
  index.sync(messages);
  return index;
};

describe("MessageIndex: a question meets a word of the same meaning or a kind of it (session 61)", () => {
  it("English: `bird` meets `cockatiel`, `beverage` meets `tea`, `frightens` meets `scared`; no shared word", () => {
    const index = indexOf([
      user("a", "lol my cockatiel is gonna be confused, Pickles is used to me being home"),
      user("b", "the doc said no more sweet tea for me"),
      user("c", "the vacuum scared him so much he hid under the bed"),
      user("d", "we finally fixed the fence in the backyard"),
    ]);
    expect(found(index, "What kind of bird is it?")).toEqual(["a"]);
    expect(found(index, "what beverage did the doctor tell her to quit")[0]).toBe("b");
    expect(found(index, "what frightens him?")).toEqual(["c"]);
  });

  it("Korean with English words: `bird` in a Korean question meets `cockatiel` in a Korean message", () => {
    const index = indexOf([
      user("a", "우리 집 cockatiel 이름은 피클스예요", "하은"),
      user("b", "주말에 본가에 내려가요", "하은"),
      user("c", "강아지 산책은 아침에 해요", "하은"),
    ]);
    expect(found(index, "무슨 bird 키워요?")).toEqual(["a"]);
  });

  it("a word some message holds finds that message only, as near spellings do", () => {
    const index = indexOf([user("a", "my cockatiel learned a new whistle"), user("b", "a bird landed on the balcony this morning")]);
    expect(found(index, "the bird")).toEqual(["b"]);
    expect(RELATED_WORD_WEIGHT).toBeLessThan(1);
  });

  it("a more general word does not meet a question about a kind of it (`bird` for `cockatiel`), nor names or Hangul", () => {
    const index = indexOf([user("a", "a bird landed on the balcony"), user("b", "새가 베란다에 앉았어요", "하은")]);
    expect(found(index, "my cockatiel")).toEqual([]);
    expect(found(index, "앵무새")).toEqual([]);
  });

  it("after the oldest messages left, a word held only by a trimmed message widens as in a fresh index of the stored thread", () => {
    const thread = [
      user("a", "a bird landed on the balcony"),
      user("b", "the cockatiel is doing great"),
      user("c", "see you tomorrow then"),
    ];
    const running = indexOf(thread);
    expect(found(running, "how is the bird?")).toEqual(["a"]);
    // persistTrim: the oldest message deleted, the rest unchanged (entries discarded, no rebuild).
    expect(running.sync(thread.slice(1)).rebuilt).toBe(false);
    expect(found(running, "how is the bird?")).toEqual(found(indexOf(thread.slice(1)), "how is the bird?"));
    expect(found(running, "how is the bird?")).toEqual(["b"]);
  });

  it.each([
    ["en", "a bird landed on the balcony", "the cockatiel is doing great", "how is the bird?"],
    ["ko", "베란다에 bird 한 마리 앉았어요", "우리 cockatiel 요즘 건강해요", "그 bird 어때?"],
  ])("%s: after a head trim, ranks (ids and scores) as a fresh index of the stored thread", (_lang, old, kept, question) => {
    const thread = [user("a", old), user("b", kept), user("c", "see you tomorrow then"), user("d", "the parakeet sings at dawn")];
    const running = indexOf(thread);
    expect(found(running, question)).toEqual(["a"]);
    expect(running.sync(thread.slice(1)).rebuilt).toBe(false);
    const ranked = (index: MessageIndex) => index.search(tokenize(question), 5).map((r) => [r.entry.id, r.score]);
    expect(ranked(running)).toEqual(ranked(indexOf(thread.slice(1))));
    expect(found(running, question)).toEqual(["b", "d"]);
  });

  it.each([
    [
      "en",
      [
        "a bird landed on the balcony",
        "my brompton got a flat",
        "the cockatiel is doing great",
        "the torunament was fun",
        "the parakeet sings at dawn",
        "see you tomorrow then",
      ],
      ["how is the bird?", "브롬톤 어때?", "the tournament", "my parrot"],
    ],
    [
      "ko",
      [
        "베란다에 bird 한 마리 앉았어요",
        "브롬톤 바퀴가 펑크 났어",
        "우리 cockatiel 요즘 건강해요",
        "tournament 결승 봤어",
        "parakeet 이 새벽에 울어요",
        "내일 봐요",
      ],
      ["그 bird 어때?", "brompton 어때?", "tournamant 어땠어?", "parrot 키워?"],
    ],
  ])(
    "%s: as messages leave past maxMessages (discards and vacuums), every widening ranks as a fresh index of the kept messages",
    (_lang, texts, questions) => {
      const thread = texts.map((text, i) => user(String.fromCharCode(97 + i), text));
      const ranked = (index: MessageIndex, question: string) => index.search(tokenize(question), 5).map((r) => [r.entry.id, r.score]);
      for (const max of [1, 2, 3]) {
        const running = new MessageIndex({ maxMessages: max });
        for (let n = 1; n <= thread.length; n += 1) {
          running.sync(thread.slice(0, n));
          const fresh = new MessageIndex({ maxMessages: max });
          fresh.sync(thread.slice(Math.max(0, n - max), n));
          for (const question of questions)
            expect([max, n, question, ranked(running, question)]).toEqual([max, n, question, ranked(fresh, question)]);
        }
      }
    },
  );
});
