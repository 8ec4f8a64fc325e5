import { describe, expect, it } from "vitest";
import { extractFactsHeuristic } from "./extract-heuristic.js";

/**
 * Korean classes added in session 46 (kofacts6): children named by their order, honorific
 * connectives of the copula and 있다, a school by its year, housing after its place, a province
 * before a hometown, a workplace's town by the copula, casual topics without their particle, a
 * birthday that ends its own clause. The sentences are written for these tests: none is taken
 * from a labelled bench set.
 */
const pairs = (text: string) => extractFactsHeuristic(text).map((f) => `${f.subject}:${f.attribute}=${f.value}`);

const expectPair = (text: string, pair: string) => expect(pairs(text), text).toContain(pair);

describe("children named by their order (큰애, 작은딸, 막내) are relatives, not the speaker", () => {
  it.each([
    ["큰딸은 스물다섯이고 은행에서 일해요", "user's 큰딸:age=스물다섯"],
    ["작은아들은 대학생이에요", "user's 작은아들:work=대학생"],
    ["막내가 아토피가 있어서 걱정이에요", "user's 막내:health=아토피"],
    ["큰애는 일곱 살이에요", "user's 큰애:age=일곱"],
    ["작은애가 비염이 있어서요", "user's 작은애:health=비염"],
  ])("%s", (text, pair) => expectPair(text, pair));

  it("a child's job is never the speaker's", () => {
    expect(pairs("큰아들은 게임 회사에서 디자이너로 일해요")).toEqual(["user's 큰아들:work=디자이너"]);
    expect(pairs("작은딸은 간호사예요").filter((p) => p.startsWith("user:"))).toEqual([]);
  });

  it("the speaker as 막내 is no relative (`저는 막내예요`)", () => {
    expect(pairs("저는 막내예요")).toEqual([]);
  });
});

describe("a bare 회사 beside a job names no workplace", () => {
  it.each([
    ["저는 IT 회사에서 기획자로 일해요", ["user:work=기획자"]],
    ["제가 작은 회사에서 디자이너로 일합니다", ["user:work=디자이너"]],
  ])("%s", (text, expected) => expect(pairs(text)).toEqual(expected));

  it("a named workplace stays, in one fact with the job (`현대차에서 엔지니어로 일해요`)", () => {
    expect(pairs("현대차에서 엔지니어로 일해요")).toEqual(["user:work=현대차 엔지니어"]);
  });
});

describe("a nursery or kindergarten is a child's school, not a hobby", () => {
  it.each([
    ["막내는 동네 어린이집 다녀요", "user's 막내:school=어린이집"],
    ["딸이 햇살유치원에 다녀요", "user's 딸:school=햇살유치원"],
    ["아들은 병설유치원 다녀", "user's 아들:school=병설유치원"],
  ])("%s", (text, pair) => {
    expectPair(text, pair);
    expect(pairs(text).some((p) => p.includes(":hobby="))).toBe(false);
  });
});

describe("a school named with its year (`청솔초등학교 2학년이에요`)", () => {
  it.each([
    ["큰애는 한빛초등학교 3학년이에요", "user's 큰애:school=한빛초등학교"],
    ["저 새봄중학교 2학년이에요", "user:school=새봄중학교"],
    ["나 연세대 4학년이야", "user:school=연세대"],
  ])("%s", (text, pair) => expectPair(text, pair));

  // A level alone with its year is that level (facts66, school-year.test.ts: the labelled sets say so).
  it("a level alone is the level and year, and a university is no major", () => {
    expect(pairs("아들이 초등학교 2학년이에요")).toEqual(["user's 아들:school=초등학교 2학년"]);
    expect(pairs("나 연세대 4학년이야")).not.toContain("user:study=연세대");
  });
});

describe("honorific connectives of the copula and 있다 (`예순이신데`, `있으셔서`)", () => {
  it.each([
    ["아버지가 올해 일흔둘이신데 고혈압이 있으셔서 걱정이에요", "user's 아버지:age=일흔둘"],
    ["아버지가 올해 일흔둘이신데 고혈압이 있으셔서 걱정이에요", "user's 아버지:health=고혈압"],
    ["할머니가 관절염이 있으셔서 제가 자주 가요", "user's 할머니:health=관절염"],
    ["엄마는 약사이시고 아빠는 회사원이세요", "user's 엄마:work=약사"],
  ])("%s -> %s", (text, pair) => expectPair(text, pair));

  it("living with someone names no home (`부모님을 모시고 살아요`, `애들 데리고 살아`)", () => {
    expect(pairs("제가 부모님을 모시고 살아요")).toEqual([]);
    expect(pairs("아버지가 치매가 있으셔서 제가 모시고 삽니다")).toEqual(["user's 아버지:health=치매"]);
  });
});

describe("housing after its place (`신림 원룸 살아`) is that place", () => {
  it.each([
    ["나 봉천동 원룸 살아", "user:residence=봉천동"],
    ["분당 아파트에 살아요", "user:residence=분당"],
    ["저 신촌 고시원에서 살아요", "user:residence=신촌"],
  ])("%s", (text, pair) => expectPair(text, pair));

  it("a price or a size before it is no place", () => {
    expect(pairs("월세 원룸 살아")).toEqual([]);
    expect(pairs("작은 원룸 살아")).toEqual([]);
  });
});

describe("a hometown after its province (`고향은 경상도 진주예요`)", () => {
  it.each([
    ["고향은 경상도 통영인데 지금은 서울 살아요", "user:hometown=통영"],
    ["제 고향은 강원도 춘천이에요", "user:hometown=춘천"],
    ["고향이 충청도 공주라서 사투리가 좀 있어요", "user:hometown=공주"],
  ])("%s", (text, pair) => expectPair(text, pair));
});

describe("the workplace's town by the copula (`회사는 여의도라서`)", () => {
  it.each([
    ["회사는 판교라서 출근이 멀어요", "user:work=판교"],
    ["직장이 강남이야", "user:work=강남"],
    ["회사가 광화문역이라 버스 타요", "user:work=광화문역"],
  ])("%s", (text, pair) => expectPair(text, pair));

  it("a distance or a state is no town", () => {
    expect(pairs("회사가 코앞이라 좋아")).toEqual([]);
    expect(pairs("회사는 처음이라 떨려요")).toEqual([]);
  });
});

describe("casual topics without their particle (`이름 김하늘임`, `취미 클라이밍임`)", () => {
  it.each([
    ["이름 박서연임 ㅋㅋ", "user:name=박서연"],
    ["내 이름 김하늘이야", "user:name=김하늘"],
    ["취미 클라이밍임 ㅋㅋ", "user:hobby=클라이밍"],
    ["취미 뜨개질이야", "user:hobby=뜨개질"],
  ])("%s", (text, pair) => expectPair(text, pair));

  it("not a word that only starts with 이름 (`이름 모를 꽃이야`)", () => {
    expect(pairs("이름 모를 꽃이야")).toEqual([]);
  });
});

describe("a birthday that ends its own clause keeps only the date", () => {
  it.each([
    ["제 생일이 3월 2일이라 친구들이 파티 해준대요", "user:birthday=3월 2일"],
    ["생일이 11월 5일인데 아무도 몰라", "user:birthday=11월 5일"],
    ["내 생일 5월 3일이야", "user:birthday=5월 3일"],
  ])("%s", (text, pair) => expect(pairs(text)).toEqual([pair]));
});

describe("a 합쇼체 habit after a day off (`쉬는 날엔 낚시를 다닙니다`)", () => {
  it.each([
    ["가게 쉬는 날엔 낚시를 다닙니다", "user:hobby=낚시"],
    ["쉬는 날엔 수영을 다녀요", "user:hobby=수영"],
    ["평일엔 헬스장 다닙니다", "user:hobby=헬스장"],
  ])("%s", (text, pair) => expectPair(text, pair));

  it("a topic ending in 는 is still a topic (`언니는 요가 다녀요` is the sister's)", () => {
    expect(pairs("언니는 요가 다녀요")).toEqual(["user's 언니:hobby=요가"]);
  });
});

describe("a request reported is no habit (`주말마다 캠핑 가자고 해요`)", () => {
  it.each(["아들이 주말마다 캠핑 가자고 해요", "친구가 주말마다 영화 보자고 해요", "엄마가 매일 일찍 오라고 해"])("%s", (text) =>
    expect(pairs(text).some((p) => p.includes(":hobby="))).toBe(false),
  );
});

describe("a full name after what the speaker does (`떡집을 하는 박영희라고 합니다`)", () => {
  it.each([
    ["시장에서 떡집을 하는 박영희라고 합니다", ["user:name=박영희", "user:work=떡집"]],
    ["동네에서 미용실 운영하는 한지수예요", ["user:name=한지수", "user:work=미용실"]],
    ["저는 부산에 사는 정하늘이라고 해요", ["user:name=정하늘"]],
  ])("%s", (text, expected) => expect(pairs(text)).toEqual(expected));

  it("someone else's name is not the speaker's", () => {
    expect(pairs("제 친구는 카페 하는 김민수예요")).toEqual([]);
    expect(pairs("그 사람은 꽃집 하는 박영희래요")).toEqual([]);
  });
});

describe("a department in a graduate course, and the school before it", () => {
  it.each([
    ["나 고려대 심리학과 석사 2년차임", ["user:study=심리학", "user:school=고려대"]],
    ["저는 경제학과 박사과정이에요", ["user:study=경제학"]],
    ["동생은 부산대 기계공학과 다녀요", ["user's 동생:study=기계공학", "user's 동생:school=부산대"]],
  ])("%s", (text, expected) => expect(pairs(text)).toEqual(expected));

  it("a school too vague to name is left out (`지방대 경영학과 다녀요`)", () => {
    expect(pairs("지방대 경영학과 다녀요")).toEqual(["user:study=경영학"]);
  });
});

describe("chat's 최애 and 극혐", () => {
  it.each([
    ["떡볶이 최애임", ["user:favorite=떡볶이"]],
    ["과일은 수박이 최애", ["user:favorite=과일: 수박"]],
    ["Java 최애고 PHP는 극혐 ㅋㅋ", ["user:favorite=Java", "user:dislikes=PHP"]],
  ])("%s", (text, expected) => expect(pairs(text)).toEqual(expected));

  it("not a question nor a demonstrative", () => {
    expect(pairs("민지 최애가 누구야?")).toEqual([]);
    expect(pairs("이게 최애야")).toEqual([]);
  });
});

describe("a make that names its device (`맥북 M2 3년째 쓰는 중`)", () => {
  it.each([
    ["맥북 M2 3년째 쓰는 중인데 느려짐", "user:belonging=맥북"],
    ["갤럭시 S24 쓰고 있어요", "user:belonging=갤럭시"],
    ["동생은 아이패드 써", "user's 동생:belonging=아이패드"],
  ])("%s", (text, pair) => expectPair(text, pair));

  it("not a negation nor someone described", () => {
    expect(pairs("아이폰 안 써")).toEqual([]);
    expect(pairs("맥북 쓰는 사람 많아")).toEqual([]);
  });
});

describe("a relative's plan at a time to come (`언니가 다음 달에 결혼해요`)", () => {
  it.each([
    ["큰딸은 내년 가을에 결혼합니다", "user's 큰딸:plan=내년 가을에 결혼"],
    ["남동생이 다음 달에 입대해요", "user's 남동생:plan=다음 달에 입대"],
    ["언니가 내년에 이사해", "user's 언니:plan=내년에 이사"],
  ])("%s", (text, pair) => expectPair(text, pair));

  it("not someone else's (`민지가 내년에 결혼해요`)", () => {
    expect(pairs("민지가 내년에 결혼해요")).toEqual([]);
  });
});

describe("a promotion to a title is also the work held (`팀장으로 승진했어요`)", () => {
  it.each([
    ["작년에 과장으로 승진했어", ["user:event=승진", "user:work=과장"]],
    ["이번 달에 차장으로 승진했습니다", ["user:event=승진", "user:work=차장"]],
    ["남편이 부장으로 승진했대요", ["user's 남편:event=승진", "user's 남편:work=부장"]],
  ])("%s", (text, expected) => expect(pairs(text)).toEqual(expected));

  it("no title, another's, or another event: the event alone or nothing", () => {
    expect(pairs("승진했어요")).toEqual(["user:event=승진"]);
    expect(pairs("민지가 대리로 승진했어요")).toEqual([]);
    expect(pairs("대리로 합격했어요")).toEqual(["user:event=합격"]);
  });
});
