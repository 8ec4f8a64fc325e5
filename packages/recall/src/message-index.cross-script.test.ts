import { HumanMessage } from "@langchain/core/messages";
import { tokenize } from "@threadwise/core";
import { describe, expect, it } from "vitest";
import { MessageIndex } from "./message-index.js";

const user = (id: string, content: string, name = "지수") => new HumanMessage({ id, content, name });
const found = (index: MessageIndex, query: string) => index.search(tokenize(query), 5).map((r) => r.entry.id);
const indexOf = (messages: HumanMessage[], maxMessages = 100) => {
  const index = new MessageIndex({ maxMessages });
  index.sync(messages);
  return index;
};

describe("MessageIndex: a loan word asked in one script finds the message in the other (session 59)", () => {
  const korean = [
    user("a", "요즘 넷플릭스가 자꾸 끊겨서 지난달에 해지했어"),
    user("b", "점심은 회사 앞 국밥집에서 먹었어"),
    user("c", "피티 스무 번 끊었는데 야근 때문에 여덟 번만 받았어"),
    user("d", "주말에는 한강에서 자전거 탔어"),
    user("e", "상품이 에어팟이라 진짜 다행이야"),
  ];

  it("a Latin word in a Korean question meets its Hangul spelling in a message (brand, acronym)", () => {
    const index = indexOf(korean);
    expect(found(index, "Netflix 언제 해지했어?")[0]).toBe("a");
    expect(found(index, "PT 몇 번 받았어?")[0]).toBe("c");
    expect(found(index, "AirPods는 누가 가져갔어?")[0]).toBe("e");
  });

  it("a Hangul word in a question meets the Latin spelling in a message, Korean or English", () => {
    const index = indexOf([
      user("a", "요즘 Netflix가 자꾸 끊겨"),
      user("b", "회의 자료는 Figma에 올려 뒀어요"),
      user("c", "The new LG monitor arrived today", "Sam"),
      user("d", "점심은 국밥 먹었어"),
    ]);
    expect(found(index, "넷플릭스 왜 해지했어?")[0]).toBe("a");
    expect(found(index, "피그마에 뭐 올렸어요?")[0]).toBe("b");
    expect(found(index, "엘지 모니터 언제 왔어?")[0]).toBe("c");
  });

  it("counts a term of the other script below the word itself, and never joins two words of one script", () => {
    const index = indexOf([user("x", "Netflix 해지했어"), user("y", "넷플릭스 해지했어"), user("z", "바다 보러 갔어")]);
    expect(found(index, "넷플릭스 해지")).toEqual(["y", "x"]);
    expect(found(index, "Netflix 해지")).toEqual(["x", "y"]);
    // `비데` and `바다` share a consonant skeleton, but both are Hangul: no match.
    expect(found(index, "비데")).toEqual([]);
    // English text and questions alone find exactly what they found before.
    const english = indexOf([user("p", "I cancelled Netflix last month", "Sam"), user("q", "We went to the beach", "Sam")]);
    expect(found(english, "When did I cancel Netflix?")).toEqual(["p"]);
  });

  it("after the oldest messages leave the index, their terms no longer answer (as a fresh index)", () => {
    const bounded = new MessageIndex({ maxMessages: 2 });
    bounded.sync(korean.slice(0, 3));
    expect(bounded.sync(korean).discarded).toBe(2);
    const fresh = indexOf(korean, 2);
    const scored = (index: MessageIndex, query: string) => index.search(tokenize(query), 5).map((r) => [r.entry.id, r.score]);
    for (const query of ["Netflix 언제 해지했어?", "AirPods는 누가 가져갔어?", "PT 몇 번 받았어?", "넷플릭스"]) {
      expect(scored(bounded, query)).toEqual(scored(fresh, query));
    }
    expect(found(bounded, "Netflix 언제 해지했어?")).toEqual([]);
    expect(found(bounded, "AirPods는 누가 가져갔어?")).toEqual(["e"]);
  });
});

describe("MessageIndex: cross-script pairs after session 60's keys", () => {
  it("an English -ing word and a word with a silent letter meet their Hangul loans; `bad` no longer finds `바다`", () => {
    const index = indexOf([
      user("a", "내일 미팅 3시로 옮겼어"),
      user("b", "주말에 바다 보러 갔어"),
      user("c", "브롬톤 중고로 샀어"),
      user("d", "점심은 국밥 먹었어"),
    ]);
    expect(found(index, "meeting 몇 시야?")[0]).toBe("a");
    expect(found(index, "Brompton 어디서 샀어?")[0]).toBe("c");
    expect(found(index, "how bad was it")).toEqual([]);
  });
});
