import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { tokenize } from "@threadwise/core";
import { describe, expect, it } from "vitest";
import { MessageIndex } from "./message-index.js";
import { rankRecall } from "./recall-block.js";

const said = (speaker: string, id: string, content: string) => new HumanMessage({ id, content, name: speaker });
const ranked = (messages: BaseMessage[], query: string) => {
  const index = new MessageIndex({ maxMessages: 100 });
  index.sync(messages);
  return rankRecall({ messages: index, terms: tokenize(query), query, inView: () => false, depth: 30 }).map((item) =>
    item.kind === "message" ? item.entry.id : "",
  );
};

// A later question about a thing shares the words of the question that first asked it; the answer
// says it with other words. The reply to a matched question is ranked with it.
describe("rankRecall: the reply to a matched question", () => {
  it("ranks the other speaker's answer right behind its question, above turns that only share a word (en)", () => {
    const messages = [
      said("Mia", "e1", "Do you still run with the club on Sundays?"),
      said("Tom", "e2", "Yes, every Sunday morning by the river."),
      said("Mia", "e3", "Which shoes did you pick for the marathon in the end?"),
      said("Tom", "e4", "The Pegasus ones, half a size up. Way comfier."),
      said("Mia", "e5", "My marathon plan starts next week."),
      said("Tom", "e6", "A friend wants new shoes too."),
      said("Mia", "e7", "I saw a marathon documentary yesterday."),
    ];
    const order = ranked(messages, "What shoes is Tom wearing for the marathon?");
    expect(order.indexOf("e4")).toBeGreaterThan(-1);
    expect(order.indexOf("e4")).toBeLessThan(3);
    expect(order.indexOf("e4")).toBeLessThan(order.indexOf("e6"));
  });

  it("ranks the answer to an assistant's question (ko, the user answering in other words)", () => {
    const messages = [
      new HumanMessage({ id: "k1", content: "요즘 가게 일이 너무 많아요" }),
      new AIMessage({ id: "k2", content: "파손된 상품은 보통 어떻게 처리하세요?" }),
      new HumanMessage({ id: "k3", content: "사진 받고 바로 다시 보내줘요. 지난주에도 한 분 병 깨져서 새로 보냈어요" }),
      new AIMessage({ id: "k4", content: "상품 사진은 제가 정리해 둘게요" }),
      new HumanMessage({ id: "k5", content: "처리할 주문이 밀렸어요 ㅠㅠ" }),
      new AIMessage({ id: "k6", content: "파손 방지 포장재도 알아볼게요." }),
    ];
    const order = ranked(messages, "상품이 파손돼서 오면 어떻게 처리해?");
    expect(order.indexOf("k3")).toBeGreaterThan(-1);
    expect(order.indexOf("k3")).toBeLessThan(3);
    expect(order.indexOf("k3")).toBeLessThan(order.indexOf("k5"));
  });

  it("reads a question that ends in laughter or ^^; a reply in the view takes nothing and its question keeps its rank", () => {
    const messages = [
      said("하린", "q1", "주말에 뭐 했어?ㅋㅋ"),
      said("도윤", "q2", "한강에서 자전거 탔어. 바람 엄청 불더라"),
      said("하린", "q3", "요즘 주말마다 뭐 해요?^^"),
      said("도윤", "q4", "도자기 공방 다녀요"),
      said("하린", "q5", "주말 날씨 좋대"),
    ];
    const index = new MessageIndex({ maxMessages: 100 });
    index.sync(messages);
    const query = "주말에 뭐 했대?";
    const rank = (inView: (id: string) => boolean) =>
      rankRecall({ messages: index, terms: tokenize(query), query, inView, depth: 30 }).map((item) =>
        item.kind === "message" ? item.entry.id : "",
      );
    const all = rank(() => false);
    expect(all.indexOf("q2")).toBeLessThan(all.indexOf("q1"));
    expect(all.indexOf("q4")).toBeLessThan(all.indexOf("q3"));
    const noReply = rank((id) => id === "q2");
    expect(noReply).not.toContain("q2");
    expect(noReply.indexOf("q1")).toBeLessThan(all.indexOf("q1"));
  });

  it("lifts no reply after a statement, after the same speaker, or after a question in the middle of a message", () => {
    const messages = [
      said("민지", "s1", "강아지 품종은 진짜 다양하더라."),
      said("서준", "s2", "웰시코기 키우고 싶어."),
      said("민지", "s3", "강아지 품종 뭐가 좋을까?"),
      said("민지", "s4", "나는 말티즈가 좋아."),
      said("서준", "s5", "Did you see the dog breed show? It was on all night."),
      said("민지", "s6", "Poodles won again."),
    ];
    const ko = ranked(messages, "강아지 품종은?");
    expect(ko).not.toContain("s2");
    expect(ko).not.toContain("s4");
    const en = ranked(messages, "Which dog breed show?");
    expect(en).not.toContain("s6");
  });
});

// Session 58: a reply that ends in a question ("Yes, but not Sunday, so maybe Saturday?") answers
// the question before it; it keeps its rank rather than giving it to the next line.
describe("rankRecall: a question that answers a question", () => {
  it("keeps the rank of a reply that asks back, above the line after it (en, ko)", () => {
    const messages = [
      said("Gemma", "a1", "The park session went really well, he ignored the other dogs."),
      said("Gemma", "a2", "Want to do one more session at the Moor before the class starts?"),
      said("Marta", "a3", "Yes but not Sunday morning, we go to church then, so maybe Saturday?"),
      said("Gemma", "a4", "Sat 27th March, 9am at the Moor then"),
      said("Marta", "a5", "Sunday walks are the best, the park is quiet."),
      said("Gemma", "a6", "Next session we try the long lead."),
      said("미경", "k1", "담주에 애들 데리고 키즈카페 한 번 더 갈까?"),
      said("소연", "k2", "좋아요 근데 일요일 오전은 교회 가야 돼서 토요일 어때요?"),
      said("미경", "k3", "그래 토요일 열시에 보자"),
      said("소연", "k4", "일요일마다 애가 늦잠 자요."),
      said("미경", "k5", "일요일에 키즈카페 사람 많더라."),
    ];
    const en = ranked(messages, "Why couldn't they do the extra session on a Sunday morning?");
    expect(en[0]).toBe("a3");
    expect(en.indexOf("a3")).toBeLessThan(en.indexOf("a4"));
    const ko = ranked(messages, "일요일 오전에는 왜 못 가?");
    expect(ko[0]).toBe("k2");
    expect(ko.indexOf("k2")).toBeLessThan(ko.indexOf("k3"));
  });
});

// Session 56: a where/when/who question holds a function word and a verb; the verb meets the plan.
describe("rankRecall: a question word and its verb", () => {
  it("ranks the plan a where/when/who question asks about first (ko: 가요, 와요, 만나요; en parity)", () => {
    const messages = [
      said("서연", "p1", "요즘 회사 일이 너무 바빠요."),
      said("서연", "p2", "이번 주 토요일에 여수로 가요."),
      said("서연", "p3", "고양이 사료를 새로 샀어요."),
      said("서연", "p4", "내일 저녁에 고등학교 친구를 만나요."),
      said("서연", "p5", "설 연휴에 부모님이 우리 집에 와요."),
      said("Ben", "e1", "Work has been busy lately."),
      said("Ben", "e2", "I'm driving to Yeosu this Saturday."),
    ];
    expect(ranked(messages, "제가 어디로 가요?")[0]).toBe("p2");
    expect(ranked(messages, "누구 만나요?")[0]).toBe("p4");
    expect(ranked(messages, "부모님이 언제 오세요?")[0]).toBe("p5");
    expect(ranked(messages, "Where am I driving?")[0]).toBe("e2");
  });
});
