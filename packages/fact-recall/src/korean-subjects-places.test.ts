import { describe, expect, it } from "vitest";
import { extractFactsHeuristic } from "./extract-heuristic.js";

/**
 * Korean classes of session 46 (rules-korean.ts): who a sentence is about when it is someone else,
 * places that are not the attribute they look like, honorific and ended habits, and two 반말 gaps.
 * The sentences are written for these tests: none is taken from a labelled bench set.
 */
const pairs = (text: string) =>
  extractFactsHeuristic(text).map((f) => `${f.subject}:${f.attribute}=${f.value}${f.ended ? " (ended)" : ""}`);
const expectFact = (text: string, pair: string, value: string, ended = false) => {
  const found = extractFactsHeuristic(text).find((f) => `${f.subject}:${f.attribute}` === pair && (f.ended ?? false) === ended);
  expect(found?.value, `${text} -> ${pairs(text).join(", ")}`).toContain(value);
};
const expectNone = (text: string, prefix: string) =>
  expect(
    pairs(text).filter((p) => p.startsWith(prefix)),
    text,
  ).toEqual([]);

describe("someone else as the subject: a name with its particle, a pronoun, a demonstrative and a person", () => {
  it.each([
    "민지는 의사예요",
    "지훈이는 개발자야",
    "수아가 간호사예요",
    "서연이도 영어 선생님이야",
    "걔 내년에 입대함",
    "쟤 다음 달에 결혼해",
    "얘 고양이 키워",
    "걔 서울 살아",
    "그 친구 요즘 테니스 쳐",
    "그 사람 부산 살아",
    "저 사람은 간호사래요",
    "어제 걔 성수동으로 이사했어",
    "근데 그 친구 다음 주에 이직한대",
  ])("%s: nothing of the speaker's", (text) => expectNone(text, "user:"));

  it.each([
    "민지는 제주도 가기로 했어",
    "지훈이도 내년에 유학 가기로 했대요",
    "수아가 다음 달에 이사할 거야",
    "민지는 카이스트에서 박사과정 하고 있어",
    "서연이는 박사과정 하고 있어요",
  ])("%s: a clause's own subject, in every rule (plans, a graduate course)", (text) => expectNone(text, "user:"));

  it.each([
    ["여행은 제주도로 가기로 했어", "user:plan", "제주도"],
    ["카이스트에서 박사과정 하고 있어", "user:school", "카이스트"],
  ])("%s: an event as the topic, or no subject, is still the speaker's", (text, pair, value) => expectFact(text, pair, value));

  it("a time before the verb is not what was obtained (`자격증은 작년에 땄어요`)", () => {
    expectNone("바리스타 자격증은 작년에 땄어요", "user:event=작년");
  });

  it.each([
    ["동생 민지는 간호사예요", "user's 동생:work", "간호사"],
    ["제 친구 수진이는 의사예요", "user's 친구:work", "의사"],
    ["우리 팀장님 부산 살아", "user's 팀장님:residence", "부산"],
    ["언니 지수는 판교에서 일해", "user's 언니:work", "판교"],
  ])("%s: a name after a relation is that relative (the family rules keep it)", (text, pair, value) => expectFact(text, pair, value));

  it.each([
    ["영어 선생님이에요", "user:work", "선생님"],
    ["요가 강사예요", "user:work", "강사"],
    ["걔랑 테니스 쳐", "user:hobby", "테니스"],
    ["그 친구랑 다음 달에 제주도 가", "user:plan", "제주도"],
    ["직업은 초등학교 교사예요", "user:work", "교사"],
    ["저 애 낳았어요", "user:event", "출산"],
  ])("%s: still the speaker's (a qualifier, a companion, the attribute's own topic)", (text, pair, value) => expectFact(text, pair, value));
});

describe("going to a clinic or for treatment is no hobby; an activity's academy is", () => {
  it.each(["소아과 다녀요", "치과 다니고 있어", "한의원 다녀요", "물리치료 다니는 중이야", "정신과 다녀", "동네 내과 다녀요"])(
    "%s: no hobby",
    (text) => expectNone(text, "user:hobby"),
  );

  it.each([
    ["요가 학원에 다녀요", "요가"],
    ["피아노 학원 다녀", "피아노"],
    ["헬스장 다녀요", "헬스장"],
    ["수영 다녀요", "수영"],
  ])("%s: a hobby", (text, value) => expectFact(text, "user:hobby", value));

  it("a bare `학원` or `병원` names neither a hobby nor a workplace", () => {
    expect(pairs("학원 다녀요")).toEqual([]);
    expect(pairs("병원 다녀요")).toEqual([]);
  });

  it.each(["부산 다녀올게", "친정 다녀올 생각이에요"])("%s: a trip (다녀오다) is no hobby", (text) => expectNone(text, "user:hobby"));
});

describe("honorific and ended walking or running habits", () => {
  it.each([
    ["엄마는 매일 걸으세요", "user's 엄마:hobby", "걷기"],
    ["할머니는 매일 아침 공원에서 걸으셔", "user's 할머니:hobby", "걷기"],
    ["아빠가 아침마다 달리세요", "user's 아빠:hobby", "달리기"],
  ])("%s: the relative's", (text, pair, value) => expectFact(text, pair, value));

  it.each(["매일 걸으세요", "그분은 아침마다 달리세요"])("%s: an honorific with no relative is nobody's fact", (text) =>
    expect(pairs(text)).toEqual([]),
  );

  it.each([
    ["예전엔 매일 걸었는데 요즘은 안 해요", "걷기"],
    ["원래 아침마다 달렸는데 요즘은 못 해", "달리기"],
    ["예전엔 매일 한강에서 뛰었는데", "러닝"],
    ["예전엔 아침마다 달렸었어", "달리기"],
    ["예전엔 주말마다 등산 갔는데 요즘은 못 가", "등산"],
    ["원래 토요일마다 낚시 갔었어요", "낚시"],
  ])("%s: a habit that ended (a past fused into the verb: 걸었, 달렸, 갔)", (text, value) => expectFact(text, "user:hobby", value, true));

  it("a trip once in the past stays an event, no habit", () => {
    expect(pairs("예전엔 부산 갔어")).toEqual(["user:event=부산"]);
  });

  it.each(["어제 공원에서 걸었어", "예전엔 전화 자주 걸었는데", "전화 자주 걸어요"])("%s: once, or another verb, is no habit", (text) =>
    expectNone(text, "user:hobby"),
  );
});

describe("반말: a study named by its abbreviation and a year; a product used", () => {
  it.each([
    ["컴공 2학년이야", "컴공"],
    ["경영 3학년이에요", "경영"],
    ["전자공학 4학년임", "전자공학"],
  ])("%s: the study", (text, value) => expectFact(text, "user:study", value));

  it("a relative's study is theirs", () => expectFact("동생 컴공 1학년이야", "user's 동생:study", "컴공"));

  it.each(["고등학교 2학년이야", "올해 2학년이야", "초등 5학년이에요", "벌써 3학년이야"])("%s: a school year, no study", (text) =>
    expectNone(text, "user:study"),
  );

  it.each([
    ["키보드는 레오폴드 써", "레오폴드"],
    ["폰은 아이폰 써요", "아이폰"],
    ["노트북 맥북 쓰고 있어", "맥북"],
    ["요즘 마우스는 로지텍 쓰는 중이야", "로지텍"],
  ])("%s: a belonging", (text, value) => expectFact(text, "user:belonging", value));

  it.each(["돈 많이 써", "일기 매일 써요", "상태관리는 zustand 써요", "키보드는 안 써", "키보드는 예전에 레오폴드 썼어"])(
    "%s: no belonging",
    (text) => expectNone(text, "user:belonging"),
  );
});

describe("a business run, said with 하다, and the honorific nominal `-심` of 반말", () => {
  it.each([
    ["지금은 꽃집을 해요", "user:work", "꽃집"],
    ["대전에서 분식집 하고 있어요", "user:work", "분식집"],
    ["이모는 강릉에서 횟집 하셔", "user's 이모:work", "횟집"],
    ["예전에 카페 알바 했었어", "user:work", "카페"],
  ])("%s: the business is the work", (text, pair, value) => expectFact(text, pair, value, text.startsWith("예전에")));

  it("a local business in a named place says where they live too", () =>
    expectFact("이모는 강릉에서 횟집 하셔", "user's 이모:residence", "강릉"));

  it.each(["식당 예약 해", "카페 가서 공부해", "우리집 해"])("%s: no business", (text) => expectNone(text, "user:work"));

  it.each([
    ["울 아빠 매일 걸으심", "user's 아빠:hobby", "걷기"],
    ["울 이모 광주에서 미용실 하심", "user's 이모:work", "미용실"],
  ])("%s: `-심` is the honorific `-셔`, the relative's", (text, pair, value) => expectFact(text, pair, value));

  it.each(["요즘 관심", "점심 먹음", "매일 걸으심"])("%s: a noun in `-심`, or no relative, states nothing", (text) =>
    expect(pairs(text)).toEqual([]),
  );
});

describe("a sentence that ends in hearsay: the clauses before it about someone else are part of the report", () => {
  it.each(["친구 지민이는 망원동에서 빵집을 하는데 요즘 많이 바쁘대요", "동생은 부산 사는데 곧 이사한대"])(
    "%s: nothing stored of the other person",
    (text) => expect(pairs(text).filter((p) => !p.startsWith("user:"))).toEqual([]),
  );

  it.each([
    ["나 서울 사는데 친구가 놀러 온대", "user:residence", "서울"],
    ["조카가 이번에 서울대 붙었대요", "user's 조카:school", "서울대"],
  ])("%s: the speaker's clause, and a relative's hearsay alone, stay", (text, pair, value) => expectFact(text, pair, value));

  it("hearsay with a subject of its own does not go on about the clause before (`… 살았었는데 맛집이 많대요`)", () =>
    expectFact("언니도 예전에 망원동 살았었는데 맛집이 많대요", "user's 언니:residence", "망원동", true));
});
