import { HumanMessage } from "@langchain/core/messages";
import { tokenize } from "@threadwise/core";
import { describe, expect, it } from "vitest";
import { MessageIndex } from "./message-index.js";

const user = (id: string, content: string, name = "Lena") => new HumanMessage({ id, content, name });
const found = (index: MessageIndex, query: string) => index.search(tokenize(query), 5).map((r) => r.entry.id);
const indexOf = (messages: HumanMessage[]) => {
  const index = new MessageIndex({ maxMessages: 100 });
  index.sync(messages);
  return index;
};

describe("MessageIndex: a question about a price finds the amount (session 60)", () => {
  it("English: `what did the repair cost` meets `$380`, which shares no other word", () => {
    const index = indexOf([
      user("a", "the rv repair is finally done"),
      user("b", "gus charged $380 for it. honestly a hero"),
      user("c", "the repair shop was closed on monday"),
    ]);
    expect(found(index, "what did the repair cost?")[0]).toBe("b");
  });

  it("Korean: `얼마 줬어` meets `칠만원`, which shares no other word", () => {
    const index = indexOf([
      user("a", "가방 새로 샀어 백화점에서", "수빈"),
      user("b", "그거 칠만원 주고 샀어", "수빈"),
      user("c", "가방 색이 진짜 예뻐", "수빈"),
    ]);
    expect(found(index, "가방 얼마 줬어?")[0]).toBe("b");
  });
});

describe("MessageIndex: a long word mistyped in the question meets the message (session 60)", () => {
  it("a swap or a dropped letter finds the message; a word some message holds does not widen", () => {
    const index = indexOf([
      user("a", "we won the regional tournament last weekend"),
      user("b", "the school fundraiser made 900 dollars"),
      user("c", "bought new stationery for the classroom"),
      user("d", "the bike trainer stays stationary in the garage"),
    ]);
    expect(found(index, "which torunament did they win?")).toEqual(["a"]);
    expect(found(index, "the funraiser")).toEqual(["b"]);
    // `stationery` is a term of a message: it finds that message only, not its near spelling `stationary`.
    expect(found(index, "stationery")).toEqual(["c"]);
    // Mistyped, it meets both words one typo away.
    expect(new Set(found(index, "stationry"))).toEqual(new Set(["c", "d"]));
  });
});

describe("MessageIndex: near spellings after the oldest messages left, as a fresh process reads the thread", () => {
  it.each([
    ["en", "the regional tournament was great", "the tournamant rules changed again", "tournament"],
    ["ko", "오늘 tournament 결승 봤어", "tournamant 규칙이 또 바뀌었대", "tournament 어땠어?"],
  ])("%s: a term held only by a trimmed message no longer blocks its near spellings", (_lang, old, kept, question) => {
    const thread = [user("a", old), user("b", kept), user("c", "nothing else to say"), user("d", "see you tomorrow then")];
    const running = indexOf(thread);
    // persistTrim: the oldest message deleted, the rest unchanged (entries discarded, no rebuild).
    expect(running.sync(thread.slice(1)).rebuilt).toBe(false);
    expect(found(running, question)).toEqual(found(indexOf(thread.slice(1)), question));
  });
});
