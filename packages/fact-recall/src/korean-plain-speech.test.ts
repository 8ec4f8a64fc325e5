import { describe, expect, it } from "vitest";
import { extractFactsHeuristic } from "./extract-heuristic.js";

const facts = (text: string) => extractFactsHeuristic(text).map((f) => [f.subject, f.attribute, f.value, f.ended ?? false]);

describe("Korean online 반말: the nominal endings -임, -함, -음 read as their plain forms (rules-korean.ts plainSpeech)", () => {
  it.each([
    // `-임` is the copula: `-이야` after a final consonant, `-야` after an open syllable.
    ["나 backend 개발자임", "나 backend 개발자야"],
    ["울 엄마 약사임", "울 엄마 약사야"],
    ["내 생일 5월 3일임 ㅋㅋ", "내 생일 5월 3일이야"],
    ["나 컴공 2학년임. 개발자임", "나 컴공 2학년이야. 개발자야"],
    // `-함` is 하다's `-해`.
    ["내년 3월에 입대함", "내년 3월에 입대해"],
    ["다음 달에 결혼함", "다음 달에 결혼해"],
    ["주말마다 축구함", "주말마다 축구해"],
    ["나 매일 아침 러닝함", "나 매일 아침 러닝해"],
    // `-음` after a verb's stem is its plain form; a past stays past.
    ["나 고양이 두 마리 키움", "나 고양이 두 마리 키워"],
    ["요즘 필라테스 배움", "요즘 필라테스 배워"],
    ["나 요즘 수영 다님", "나 요즘 수영 다녀"],
    ["아빠랑 주말마다 낚시 감", "아빠랑 주말마다 낚시 가"],
    ["작년에 부산으로 이사했음", "작년에 부산으로 이사했어"],
    // `-는 중임` is the progressive, `-ㄹ 거임` the future.
    ["편의점 알바 하는 중임", "편의점 알바 하고 있어"],
    ["요즘 클라이밍 배우는 중임", "요즘 클라이밍 배우고 있어"],
    ["다음 달에 제주도 여행 갈 거임", "다음 달에 제주도 여행 갈 거야"],
    ["담달에 PS5 지를 거임", "담달에 PS5 지를 거야"],
  ])("%s states what %s states", (casual, plain) => {
    const said = facts(casual);
    expect(said.length).toBeGreaterThan(0);
    expect(said).toEqual(facts(plain));
  });

  it("a nominal ending followed by more words ends its sentence (`씀 작년에 …`, `좋아함 에임이 …`)", () => {
    expect(facts("나 고양이 키움 작년에 입양함")).toEqual(facts("나 고양이 키워. 작년에 입양해"));
    expect(facts("FPS는 별로 안 좋아함 에임이 구려서")).toEqual([["user", "dislikes", "FPS", false]]);
    expect(facts("요즘 필라테스 배움 재밌음")).toEqual([["user", "hobby", "필라테스", false]]);
  });

  it.each([
    // Nouns ending in 임, 함 or 음 are no ending: nothing is cut from them.
    "오늘 동아리 모임",
    "이거 롤 게임",
    "어제 보험",
    "내 마음",
    "내 이름",
    "오늘 저녁은 김치볶음",
    "영어 발음",
    "우리반 담임",
    // Questions stay questions.
    "나 컴공 2학년임?",
    "너 요즘 필라테스 배움?",
    "최애 게임 뭐임?",
    "주말마다 축구함?",
    // Hearsay stays hearsay; someone else's facts are not the speaker's.
    "형이 내년에 입대한다고 함",
    "민지가 부산 산다고 함",
    "친구가 그러는데 야스오 너프됨",
    "걔는 의사임",
    "친구가 요즘 필라테스 배움",
  ])("%s states no fact of the speaker's", (text) => {
    expect(facts(text).filter((f) => f[0] === "user")).toEqual([]);
  });

  it("a noun ending in 임/함/음 keeps its whole form in a value", () => {
    expect(facts("나 게임 좋아함")).toEqual([["user", "likes", "게임", false]]);
    expect(facts("내 취미는 게임임")).toEqual([["user", "hobby", "게임", false]]);
    expect(facts("나 얼음 좋아함")).toEqual([["user", "likes", "얼음", false]]);
  });
});
