import { describe, expect, it } from "vitest";
import { extractFactsHeuristic } from "./extract-heuristic.js";

/**
 * Korean grammar classes added in session 39 (rules-korean.ts), one `describe` per class. The
 * sentences are written for these tests: none is taken from a labelled bench set.
 */
const find = (text: string, pair: string) => extractFactsHeuristic(text).find((f) => `${f.subject}:${f.attribute}` === pair);
const pairs = (text: string) => extractFactsHeuristic(text).map((f) => `${f.subject}:${f.attribute}=${f.value}`);

const expectFact = (text: string, pair: string, value: string) => {
  const found = find(text, pair);
  expect(found?.value, `${text} -> ${pairs(text).join(", ")}`).toContain(value);
};

describe("spelling variants: 알러지 and 알레르기 say the same", () => {
  it.each([
    ["저 땅콩 알러지 있어요", "땅콩"],
    ["난 고양이털 알러지가 있어", "고양이털"],
    ["복숭아 알레르기 있어서 조심해요", "복숭아"],
  ])("%s", (text, value) => expectFact(text, "user:health", value));
});

describe("illness nouns by their suffix (-염, -증, -병, -증후군) with 있다/걸리다/심하다", () => {
  it.each([
    ["저 장염 걸렸어요", "장염"],
    ["나 불면증 있어", "불면증"],
    ["요즘 안구건조증이 심해서 힘들어요", "안구건조증"],
    ["제가 공황장애가 있어서요", "공황장애"],
  ])("%s", (text, value) => expectFact(text, "user:health", value));

  it("not a word that only ends like one (`인증`, `관심`) nor someone else's", () => {
    expect(pairs("본인인증 있어요")).toEqual([]);
    expect(pairs("그 사람이 장염 걸렸대")).toEqual([]);
  });
});

describe("a body part with a complaint (안 좋다, 아프다, 수술 받다)", () => {
  it.each([
    ["제가 어깨가 안 좋아서 무거운 건 못 들어요", "어깨"],
    ["나 요즘 무릎이 아파", "무릎"],
    ["작년에 허리 수술 받았어요", "허리"],
    ["발목 수술했어", "발목"],
  ])("%s", (text, value) => expectFact(text, "user:health", value));

  it("a relative's complaint is theirs", () => {
    expectFact("아빠가 허리가 안 좋으셔서 걱정이에요", "user's 아빠:health", "허리");
  });
});

describe("age before a connective, in native numbers with 살, and as `<age> 되다`", () => {
  it.each([
    ["나이는 마흔셋이고 애가 둘이에요", "마흔셋"],
    ["저 스물일곱인데 아직 학생이에요", "스물일곱"],
    ["제가 서른하나라서 좀 늦었어요", "서른하나"],
    ["저 올해 서른 됐어요", "서른"],
  ])("%s: the speaker's age", (text, value) => expectFact(text, "user:age", value));

  it("a child's age in native numbers with 살", () => {
    expectFact("아들은 일곱 살이라 내년에 학교 가요", "user's 아들:age", "일곱");
  });

  it("not a count of other things (`세 번`, `두 개`)", () => {
    expect(pairs("나 서른 번은 말했어").filter((p) => p.includes(":age="))).toEqual([]);
  });
});

describe("family stated without its particle (`딸 둘 있어요`)", () => {
  it.each([
    ["저 딸 둘 있어요", "딸"],
    ["남편이랑 초등학생 아들 하나 있어요", "아들"],
    ["나 여동생 한 명 있어", "여동생"],
  ])("%s", (text, value) => expectFact(text, "user:family", value));
});

describe("a relative as subject without a particle in casual speech (`엄마 대전 사셔`)", () => {
  it.each([
    ["엄마 대전 사셔", "user's 엄마:residence", "대전"],
    ["형 요즘 판교에서 일해", "user's 형:work", "판교"],
  ])("%s", (text, pair, value) => expectFact(text, pair, value));

  it("a relative as the object stays the speaker's sentence (`엄마 보러 가`)", () => {
    expect(pairs("엄마 보러 부산 갈 거야").filter((p) => p.startsWith("user's"))).toEqual([]);
  });
});

describe("connective endings on 다니다 (`다니는데`, `다니거든`)", () => {
  it("a bare `학교`/`회사` names no school, workplace or activity", () => {
    expect(pairs("동생은 요즘 학교 다니고 있어")).toEqual([]);
  });

  it.each([
    ["요즘 필라테스 다니는데 너무 힘들어", "user:hobby", "필라테스"],
    ["나 주말마다 볼링장 다니거든", "user:hobby", "볼링장"],
    ["저 현대자동차 다니는데요", "user:work", "현대자동차"],
  ])("%s", (text, pair, value) => expectFact(text, pair, value));
});

describe("a job in progressive form and a business run (`-하고 있다`, `운영하다`)", () => {
  it.each([
    ["저는 부산에서 장사를 하고 있어요", "user:work", "장사"],
    ["지금 프리랜서로 번역 일 하고 있습니다", "user:work", "프리랜서"],
    ["동네에서 작은 꽃집을 운영해요", "user:work", "꽃집"],
    ["저 카페 운영하고 있어요", "user:work", "카페"],
  ])("%s", (text, pair, value) => expectFact(text, pair, value));

  it("self-employment in a place says where the speaker lives", () => {
    expectFact("저는 전주에서 자영업 하고 있어요", "user:residence", "전주");
  });

  it("school as a graduate course (`박사과정`) in a place", () => {
    expectFact("동생 포항공대에서 석사과정 하고 있어", "user's 동생:school", "포항공대");
  });
});

describe("life events (딴 면허, 승진, 합격, 등록, 출산, moving away)", () => {
  it.each([
    ["나 드디어 자격증 땄어", "user:event", "자격증"],
    ["저 이번에 과장으로 승진했어요", "user:event", "승진"],
    ["나 공무원 시험 합격했다", "user:event", "합격"],
    ["이번 달부터 수영 등록했어", "user:hobby", "수영"],
    ["누나 지난주에 아기 낳았어", "user's 누나:event", "출산"],
  ])("%s", (text, pair, value) => expectFact(text, pair, value));

  it("a birth to come is a plan", () => {
    expectFact("언니가 다음 달에 아기 낳아", "user's 언니:plan", "출산");
  });

  it("moving away (`내려갔어`, `올라왔어요`) gives where they live now", () => {
    expectFact("오빠는 작년에 제주로 내려갔어", "user's 오빠:residence", "제주");
    expectFact("저 대학 때문에 서울로 올라왔어요", "user:residence", "서울");
  });

  it("a trip is no move (`부산 내려가서 친구 만났어`)", () => {
    expect(pairs("주말에 부산 내려가서 친구 만났어").filter((p) => p.includes("residence"))).toEqual([]);
  });
});

describe("a demonstrative after a list is never the value (`새우 게 이런거 못 먹어`)", () => {
  it("the first noun of the list is", () => {
    expectFact("나 오징어 문어 이런거 못먹어", "user:constraint", "오징어");
  });
});
