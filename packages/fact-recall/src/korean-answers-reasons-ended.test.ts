import { describe, expect, it } from "vitest";
import { extractFactsHeuristic } from "./extract-heuristic.js";

/**
 * Korean classes added by kofacts8 (session 50, rules-korean.ts), one `describe` per class: a full
 * name given alone as an answer, facts stated with a reason in `-니까`/`-거든`, facts that ended
 * with the current one after them, family counts. The sentences are written for these tests: none
 * is taken from a labelled bench set.
 */
const pairs = (text: string) =>
  extractFactsHeuristic(text).map((f) => `${f.subject}:${f.attribute}=${f.value}${f.ended ? " (ended)" : ""}`);

const expectFact = (text: string, fact: string) => {
  const found = pairs(text);
  expect(
    found.some((p) => p === fact || (p.startsWith(fact.split("=")[0] as string) && p.includes(fact.split("=")[1] as string))),
    `${text} -> ${found.join(", ")}`,
  ).toBe(true);
};
const expectNo = (text: string, prefix: string) => {
  const found = pairs(text);
  expect(
    found.filter((p) => p.startsWith(prefix)),
    `${text} -> ${found.join(", ")}`,
  ).toEqual([]);
};

describe("a full name given alone as an answer", () => {
  it.each([
    ["김서윤이에요", "김서윤"],
    ["박준혁입니다. 잘 부탁드립니다.", "박준혁"],
    ["이름은요, 한지민", "한지민"],
    ["제 이름요? 오승현이요", "오승현"],
    ["저요? 윤하린 ㅎㅎ", "윤하린"],
    ["이름은 ㅋㅋ 제갈 윤 이에요", "제갈윤"],
  ])("%s", (text, value) => expectFact(text, `user:name=${value}`));

  it("words of three syllables that start like a surname are no name (`고구마`, `정류장`, `이태원`)", () => {
    for (const text of ["고구마예요", "정류장이요", "이태원이에요", "김치전이요 ㅋㅋ", "오늘이요?", "한번이요", "한정식이요", "조수석이요"])
      expectNo(text, "user:name");
  });

  it("a name asked about, or someone else's, is not the speaker's", () => {
    for (const text of ["김서윤이에요?", "동생은 박준혁이에요", "그 사람 이름요? 한지민"]) expectNo(text, "user:name");
  });
});

describe("a fact stated with a reason in -니까 / -(으)니까 / -거든(요)", () => {
  it.each([
    ["강아지 키우니까 여행을 잘 못 가요", "user:pet=강아지"],
    ["제가 광주 사니까 주말에만 올라가요", "user:residence=광주"],
    ["주말마다 테니스 치거든 그래서 손목이 좀 아파", "user:hobby=테니스"],
    ["저 갑상선약 먹거든요", "user:health=갑상선"],
    ["제가 원래 대구 사람이거든요", "user:hometown=대구"],
    ["회사가 여의도니까 지하철 타요", "user:work=여의도"],
    ["지금 다니는 회사가 판교니까 차로 다녀요", "user:work=판교"],
    ["나 주말마다 필라테스 하잖아", "user:hobby=필라테스"],
    ["제가 간호사잖아요 그래서 밤에 일해요", "user:work=간호사"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it("the main clause after the reason is still read", () => {
    expectFact("날이 추우니까 요즘은 주말마다 수영 다녀요", "user:hobby=수영");
    expectFact("일이 바쁘니까 저는 판교에서 살아요", "user:residence=판교");
  });

  it("a reason that states nothing, hearsay in -다니까 and a relative's reason are no fact of the speaker's", () => {
    expectNo("배고프니까 라면 먹자", "user:");
    expectNo("주말에 눈 온다니까 집에 있을래", "user:");
    expectNo("걔가 부산 산다니까 같이 가자", "user:");
    expectNo("너 내일 온다고 했잖아", "user:");
    expectNo("우리 형이 의사잖아 그래서 물어봤어", "user:");
    expectFact("아빠가 허리가 안 좋으시니까 제가 운전해요", "user's 아빠:health=허리");
    expectNo("아빠가 허리가 안 좋으시니까 제가 운전해요", "user:health");
    expectNo("남편이 고양이 키우니까 제가 밥을 줘요", "user:pet");
  });
});

describe("a fact that ended, with the current one after it", () => {
  it.each([
    ["전엔 대전 살았는데 지금은 세종 살아요", ["user:residence=대전 (ended)", "user:residence=세종"]],
    ["원래 카카오 다니다가 관뒀어", ["user:work=카카오 (ended)"]],
    ["쿠팡은 2년 다니고 그만뒀어요", ["user:work=쿠팡 (ended)"]],
    ["십 년 다니던 병원을 올해 그만두었습니다", ["user:work=병원 (ended)"]],
    ["담배 끊엇어요 ㅋㅋ", ["user:health=담배 (ended)"]],
    ["담배 완전 끊음", ["user:health=담배 (ended)"]],
    ["작년까지 은행원이었는데 지금은 출판사 다녀요", ["user:work=은행원 (ended)", "user:work=출판사"]],
  ])("%s", (text, facts) => {
    for (const fact of facts) expectFact(text, fact);
  });

  it("the ended one is not stated as current, and habits given up stay hobbies", () => {
    expect(pairs("전엔 대전 살았는데 지금은 세종 살아요")).not.toContain("user:residence=대전");
    expect(pairs("원래 카카오 다니다가 관뒀어")).not.toContain("user:hobby=카카오 (ended)");
    expectFact("수영 다니다가 그만뒀어요", "user:hobby=수영 (ended)");
    expectNo("지금은 출판사 다녀요", "user:hobby");
  });

  it("a relative's ended fact stays theirs", () => {
    expectFact("엄마가 작년에 담배 끊으셨어요", "user's 엄마:health=담배 (ended)");
    expectNo("엄마가 작년에 담배 끊으셨어요", "user:");
    expectFact("남편은 LG 다니다가 그만두고 지금은 가게 해요", "user's 남편:work=LG (ended)");
    expectNo("남편은 LG 다니다가 그만두고 지금은 가게 해요", "user:");
  });

  it("not given up yet, or not the speaker's: nothing ended", () => {
    expectNo("아직 담배 못 끊었어요", "user:health");
    expectNo("친구가 담배 끊었대요", "user:");
    expectNo("담배 끊으면 뭐가 좋아요?", "user:");
  });
});

describe("family counts (형이 둘, 아이가 셋이에요)", () => {
  it.each([
    ["딸이 셋이에요", "user:family=딸"],
    ["오빠가 둘이라 어릴 때 싸움을 많이 했어요", "user:family=오빠"],
    ["손주가 다섯입니다", "user:family=손주"],
    ["애가 둘인데 둘 다 초등학생이야", "user:family=애"],
    ["누나랑 여동생 하나씩 있어", "user:family=여동생"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it("the clauses after a count with -인데 are about those relatives", () => {
    expectFact("형이 둘인데 둘 다 인천 살아요", "user's 형:residence=인천");
    expectNo("형이 둘인데 둘 다 인천 살아요", "user:residence");
  });

  it("someone else's children, a question or a count of other things are no family of the speaker's", () => {
    expectFact("언니가 애가 셋이에요", "user's 언니:family=애");
    expectNo("언니가 애가 셋이에요", "user:family=애");
    expectNo("친구는 아이가 둘이래요", "user:");
    expectNo("형제가 몇이에요?", "user:");
    expectNo("사과가 셋이에요", "user:");
  });
});
