import { describe, expect, it } from "vitest";
import { extractFactsHeuristic } from "./extract-heuristic.js";
import { koreanSentences } from "./rules-korean.js";

const facts = (text: string) => extractFactsHeuristic(text).map((f) => [f.subject, f.attribute, f.value, f.ended ?? false]);

describe("Korean chat register: the forms casual speech takes (rules-korean.ts)", () => {
  it.each([
    // Casual speech drops the case particle before the verb (BARE): the same facts as with it.
    ["나 새우 못 먹어", "새우를 못 먹어요"],
    ["요즘 클라이밍 배우고 있어", "요즘 클라이밍을 배우고 있어요"],
    ["주말마다 tennis 쳐", "주말마다 tennis를 쳐요"],
    ["컴공 전공했어", "컴공을 전공했어요"],
    ["어제 결혼식 갔다 왔어", "어제 결혼식에 갔다 왔어요"],
    // `완전`, `넘`, `진심` are degree adverbs like `정말`: never the liked or disliked object.
    ["나 모츠나베 완전 좋아해", "저는 모츠나베를 정말 좋아해요"],
    ["오이 넘 싫어", "오이를 너무 싫어해요"],
    ["마라탕 진심 좋아해", "마라탕을 정말 좋아해요"],
    // The birthday's particle dropped; `울` is the chat contraction of `우리`.
    ["내 생일 5월 3일이야", "제 생일은 5월 3일이에요"],
    ["울 엄마 약사야", "우리 엄마는 약사예요"],
    // `원래` without `는` sets a past that no longer holds, as `원래는` does.
    ["나 원래 신림 살았는데", "원래는 신림에 살았는데"],
    // 반말 verbs after a habit word, and an activity attended without its particle.
    ["나는 요즘 주말마다 한강에서 자전거 타.", "주말마다 자전거를 타요."],
    ["나 요즘 수영 다녀", "요즘은 수영을 다녀요."],
  ])("%s states what %s states", (casual, written) => {
    const said = facts(casual);
    expect(said.length).toBeGreaterThan(0);
    expect(said).toEqual(facts(written));
  });

  it("a job qualified by a Latin word, and a school one graduated from (`나왔어`)", () => {
    // The Latin word is part of the job (kofacts9; was `개발자` alone).
    expect(facts("나 backend 개발자야")).toEqual([["user", "work", "backend 개발자", false]]);
    expect(facts("나 연세대 나왔어")).toEqual([["user", "school", "연세대", false]]);
  });

  it("a copula in its connective form (`-라서`, `-이라`) ends a clause with its own fact", () => {
    expect(facts("채식주의자라서 고기는 안 먹어요.")).toEqual([
      ["user", "health", "채식주의자", false],
      ["user", "constraint", "고기 못 먹음", false],
    ]);
    expect(facts("저 간호사라서 밤에도 일해요")).toEqual([["user", "work", "간호사", false]]);
    expect(facts("제 동생은 의사라 바빠요")).toEqual([["user's 동생", "work", "의사", false]]);
  });

  it("a name in Latin letters attended (`다녀`) is no activity; a trip (`다녀왔어`) is none either", () => {
    expect(facts("나 GS리테일 다녀")).toEqual([]);
    expect(facts("지난 주말에 강릉에 다녀왔어요.").map(([, attribute]) => attribute)).toEqual(["event"]);
  });

  it("a noun ending in 다 does not end the sentence; a verb's 다 does", () => {
    expect(koreanSentences("우리 누나 캐나다 살아")).toEqual(["우리 누나 캐나다 살아"]);
    expect(facts("우리 누나 캐나다 살아")).toEqual([["user's 누나", "residence", "캐나다", false]]);
    expect(koreanSentences("어제 부산 갔다 너무 좋았어")).toEqual(["어제 부산 갔다", "너무 좋았어"]);
    expect(koreanSentences("바다 보고 싶다 진짜")).toEqual(["바다 보고 싶다", "진짜"]);
  });

  it.each([
    // A birthday is a date: `생일 파티야` states none.
    "내일 내 생일 파티야",
    // A time word before the verb is no place visited.
    "어제 갔다 왔어",
    // Still no fact about the user: someone else's, a question, a wish.
    "지호 고양이 완전 좋아해?",
    "후쿠오카 가고 싶다 ㅠㅠ",
    "친구도 고양이 키워",
  ])("%s states no fact about the user", (text) => {
    expect(facts(text).filter(([subject]) => subject === "user")).toEqual([]);
  });
});
