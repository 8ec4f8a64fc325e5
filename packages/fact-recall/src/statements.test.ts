import { describe, expect, it } from "vitest";
import { extractFactsHeuristic } from "./extract-heuristic.js";
import { replayStatements as replay } from "./fixtures/replay-statements.js";

const facts = (text: string) => extractFactsHeuristic(text).map((f) => [f.subject, f.attribute, f.value]);

describe("third-party statements are not facts about the user (issue 15)", () => {
  it.each([
    // Family, friends, colleagues: stored about that person.
    ["어제 친구가 부산으로 이사했어요.", [["user's 친구", "residence", "부산"]]],
    ["친구 민수는 대구에 살아요.", [["user's 친구", "residence", "대구"]]],
    ["제 동생 민지는 대구에 살아요.", [["user's 동생", "residence", "대구"]]],
    ["우리 엄마는 광주에 사세요.", [["user's 엄마", "residence", "광주"]]],
    ["회사 동료가 고양이를 싫어해요.", [["user's 회사 동료", "dislikes", "고양이"]]],
    ["제 남자친구는 요리사예요.", [["user's 남자친구", "work", "요리사"]]],
    // Named people, pronouns, titles, animals: not stored.
    ["민지는 오이를 싫어해요.", []],
    ["팀장님은 등산을 좋아해요.", []],
    ["그녀는 서울에 살아요.", []],
    // The cat's liking is not the user's; the cat is the user's pet (session 64).
    ["제 고양이가 참치를 좋아해요.", [["user", "pet", "고양이"]]],
    // The user's own clause next to a friend's.
    [
      "친구는 부산에 사는데 저는 서울에 살아요.",
      [
        ["user's 친구", "residence", "부산"],
        ["user", "residence", "서울"],
      ],
    ],
    // Time words and objects carrying 은/는 are not subjects.
    ["요즘은 커피가 싫어요.", [["user", "dislikes", "커피"]]],
    ["저는 커피는 싫어요.", [["user", "dislikes", "커피"]]],
    ["친구랑 같이 부산에 살아요.", [["user", "residence", "부산"]]],
    ["판교에 있는 회사에서 일해요.", [["user", "work", "회사"]]],
  ])("Korean: %s", (text, expected) => {
    expect(facts(text)).toEqual(expected);
  });

  it.each([
    ["My friend Sarah lives in Tokyo.", "user's friend"],
    ["My boss moved to Berlin.", "user's boss"],
    ["My sister lives in Daegu.", "user's sister"],
  ])("English: %s is about %s", (text, subject) => {
    expect(extractFactsHeuristic(text).every((f) => f.subject === subject)).toBe(true);
    expect(extractFactsHeuristic(text).length).toBeGreaterThan(0);
  });

  it.each(["Sarah lives in Tokyo.", "Tom hates sushi.", "He moved to Paris.", "Our neighbour Mr. Kim works at a bank."])(
    "English: %s gives no fact about the user",
    (text) => {
      expect(extractFactsHeuristic(text).filter((f) => f.subject === "user")).toEqual([]);
    },
  );

  it("a friend's move never replaces the user's residence, a colleague's dislike never the user's like (Korean)", () => {
    const slot = replay([
      "저는 서울에 살아요.",
      "저는 고양이를 좋아해요.",
      "어제 친구가 부산으로 이사했어요.",
      "회사 동료가 고양이를 싫어해요.",
      "민지는 대전에 살아요.",
      "지난달에 인천으로 이사했어요.",
    ]);
    const user = slot.facts.filter((f) => f.subject === "user").map((f) => [f.key, f.value, f.previousValue]);
    expect(user).toEqual([
      ["user|residence", "인천", "서울"],
      ["user|preference|고양이", "고양이", undefined],
    ]);
  });

  it("the same in English: moves and corrections of the user, statements about others apart", () => {
    const slot = replay([
      "I live in Seoul.",
      "I love cats.",
      "My friend moved to Busan.",
      "Sarah hates cats.",
      "I moved to Incheon last week.",
      "Actually I don't like cats anymore.",
    ]);
    const user = slot.facts.filter((f) => f.subject === "user").map((f) => [f.key, f.attribute, f.value]);
    expect(user).toEqual([
      ["user|residence", "residence", "Incheon"],
      ["user|preference|cats", "dislikes", "cats"],
    ]);
  });
});

describe("common Korean statement forms (issue 15)", () => {
  it.each([
    ["제 직업은 간호사예요.", "work", "간호사"],
    ["간호사로 일해요.", "work", "간호사"],
    ["저는 초등학교 교사로 일하고 있어요.", "work", "교사"],
    ["저는 삼성전자에 다녀요.", "work", "삼성전자"],
    ["제 나이는 서른 살이에요.", "age", "서른"],
    ["서른 살이에요.", "age", "서른"],
    ["저는 29살이에요.", "age", "29"],
    ["제 생일은 5월 3일이에요.", "birthday", "5월 3일"],
    ["사는 곳은 부산이에요.", "residence", "부산"],
    ["저는 부산 사람이에요.", "hometown", "부산"],
    ["부산에서 태어났어요.", "hometown", "부산"],
    ["취미는 등산이에요.", "hobby", "등산"],
    ["제 취미는 사진 찍기예요.", "hobby", "사진 찍기"],
    ["주말마다 테니스를 쳐요.", "hobby", "테니스"],
    ["저는 매일 아침 조깅을 해요.", "hobby", "조깅"],
    ["저는 손흥민 팬이에요.", "likes", "손흥민"],
    ["요리에 관심이 많아요.", "likes", "요리"],
    ["저는 한국어를 공부하고 있어요.", "study", "한국어"],
    ["차를 가지고 있어요.", "belonging", "차"],
    ["매운 음식을 잘 못 먹어요.", "constraint", "매운 음식 못 먹음"],
  ])("%s -> %s = %s", (text, attribute, value) => {
    expect(extractFactsHeuristic(text)).toEqual([expect.objectContaining({ subject: "user", attribute, value, language: "ko" })]);
  });

  it("does not take a modifier for a hometown", () => {
    expect(extractFactsHeuristic("저는 좋은 사람이에요.")).toEqual([]);
  });
});
