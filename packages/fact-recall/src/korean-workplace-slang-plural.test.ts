import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * Korean classes added by kofacts9 (session 50, rules-korean.ts), one `describe` per class: a
 * company gone to with 다니다, a hobby said bare with its habit after it, a home at a parent's
 * house, a school in slang, a plural subject after relatives just named, leaving a school. The
 * sentences are written for these tests: none is taken from a labelled bench set.
 */

describe("a company gone to with 다니다 is the workplace by its name or when the message is about the job", () => {
  it.each([
    ["요번에 옮겼어 ㅎㅎ 지금 쿠팡 다녀", "user:work=쿠팡"],
    ["네이버 다닌 지 2년 됐어요", "user:work=네이버"],
    ["작년에 이직해서 요즘은 리디 다녀요", "user:work=리디"],
    ["연봉 올려서 옮겼어. 지금은 야놀자 다님", "user:work=야놀자"],
    ["형은 카카오 다녀요", "user's 형:work=카카오"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each([
    ["퇴근하고 필라테스 다녀요", "user:hobby=필라테스"],
    ["회사 끝나고 클라이밍 다녀", "user:hobby=클라이밍"],
    ["이직 준비하느라 중국어 학원 다녀요", "user:hobby=중국어"],
    ["출근 전에 수영 다녀요", "user:hobby=수영"],
  ])("a pastime stays one: %s", (text, fact) => {
    expectFact(text, fact);
    expectNo(text, "user:work");
  });

  it("a friend's company is no fact of the speaker's", () => {
    expectNo("친구가 토스 다녀", "user:");
    expectNo("친구가 토스 다녀", "user:work");
  });
});

describe("a home at a parent's house is the place named before it", () => {
  it.each([
    ["요즘 분당 본가에서 살아요", "user:residence=분당"],
    ["지금은 청주 본가에 살아", "user:residence=청주"],
    ["퇴사하고 전주 본가에서 지내요", "user:residence=전주"],
    ["애 낳고 마산 친정에서 지내는 중이에요", "user:residence=마산"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it("the house alone or someone else's names no home", () => {
    for (const text of ["본가에서 살아요", "친구 본가에서 지내요", "주말엔 본가에 가요", "잘 지내요"]) expectNo(text, "user:residence");
  });
});

describe("a school level in slang is where the speaker or the relative named goes", () => {
  it.each([
    ["우리 오빠 대딩임", "user's 오빠:school=대딩"],
    ["여동생은 중딩이야 ㅋㅋ", "user's 여동생:school=중딩"],
    ["남동생 하나 있어요. 고딩이에요", "user's 남동생:school=고딩"],
    ["저 고딩이에요 ㅎㅎ", "user:school=고딩"],
    ["막내 초딩임", "user's 막내:school=초딩"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it("a relative's school is never the speaker's; a time of school life is no school", () => {
    expectNo("동생 하나 있음 ㅋㅋ 중딩임", "user:school");
    expectNo("누나가 하나 있는데 대딩이야", "user:school");
    for (const text of ["고딩 때 살 엄청 쪘어", "중딩들 너무 시끄러워", "대딩 시절 그립다"]) expectNo(text, "user:school");
  });
});

describe("a plural subject after the relatives just named is theirs", () => {
  it.each([
    ["손녀가 셋이에요. 다들 대구에 살아요.", "user's 손녀:residence=대구"],
    ["아들이 둘인데 모두 수원 살아요", "user's 아들:residence=수원"],
    ["조카가 넷 있거든. 걔네 다 캐나다 살아", "user's 조카:residence=캐나다"],
    ["언니가 둘이야. 둘 다 간호사야", "user's 언니:work=간호사"],
  ])("%s", (text, fact) => {
    expectFact(text, fact);
    expectNo(text, "user:residence");
    expectNo(text, "user:work");
  });

  it("with no relatives before, the speaker's own clause is read as before", () => {
    expectFact("저 서울 살아요. 다들 친절해요", "user:residence=서울");
    expectNo("손주가 넷입니다. 다들 서울에 살아요.", "user:residence");
    expectNo("손녀가 셋이에요. 다들 대구에 살아요?", "user's 손녀:residence");
  });
});

describe("an activity kept up, said bare with 하다 and its habit word after it or none", () => {
  it.each([
    ["필라테스 하거든 화요일마다", "user:hobby=필라테스"],
    ["요새 복싱 해", "user:hobby=복싱"],
    ["등산함 주말마다 ㅋㅋ", "user:hobby=등산"],
    ["명상해요 아침에", "user:hobby=명상"],
    ["아빠는 요즘 낚시 하셔", "user's 아빠:hobby=낚시"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it("a one-off time, a question, a negation, a suggestion or a chore is no hobby", () => {
    for (const text of ["오늘 요가 해", "복싱 해?", "요가 안 해요", "필라테스 해 봐", "청소 해요 주말마다", "아빠는 요즘 낚시 하셔"])
      expectNo(text, "user:hobby");
  });
});

describe("leaving a school", () => {
  it.each([
    ["중학교 자퇴했어요", "user:school=중학교 (ended)"],
    ["저 고등학교 자퇴하고 바로 취업했어요", "user:school=고등학교 (ended)"],
    ["고려대 다니다가 자퇴했어", "user:school=고려대 (ended)"],
    ["누나가 고등학교 자퇴했어", "user's 누나:school=고등학교 (ended)"],
    ["지금 휴학 중이에요", "user:school=휴학"],
    ["저 이번 학기 휴학했어요", "user:school=휴학"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it("a wish, a question or a relative's leaving is no school left by the speaker", () => {
    for (const text of ["자퇴하고 싶다", "휴학할까 고민 중", "휴학 중이야?", "누나가 고등학교 자퇴했어", "동생이 휴학 중이에요"])
      expectNo(text, "user:school");
  });
});

describe("a Latin word before a job, and a job by its Latin abbreviation", () => {
  it.each([
    ["저 frontend 개발자예요", "user:work=frontend 개발자"],
    ["나 BX 디자이너임", "user:work=BX 디자이너"],
    ["data 엔지니어로 2년째 일하는 중이에요", "user:work=data 엔지니어"],
    ["저 PO예요 핀테크 회사에서", "user:work=PO"],
    ["나 android 개발자잖아 ㅋㅋ", "user:work=android 개발자"],
    ["오빠는 iOS 개발자야", "user's 오빠:work=iOS 개발자"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it("a time, a question or someone else's job is none of the speaker's", () => {
    for (const text of ["3시 PM이에요", "PM이에요?", "걔 backend 개발자잖아", "오빠는 iOS 개발자야", "디자이너로 십 년 동안 일했어요"])
      expectNo(text, "user:work");
  });
});

describe("a place gone to then left, said with -다 for -다가, in a clause before another", () => {
  it.each([
    ["남편은 은행 다니다 퇴직하고 요즘 등산 다녀요", ["user's 남편:work=은행 (ended)", "user's 남편:hobby=등산"]],
    ["아빠는 증권사 다니다 퇴직하셨어요", ["user's 아빠:work=증권사 (ended)"]],
    ["쿠팡 다니다 관뒀어", ["user:work=쿠팡 (ended)"]],
    ["필라테스 다니다 그만뒀어요", ["user:hobby=필라테스 (ended)"]],
  ])("%s", (text, facts) => {
    for (const fact of facts) expectFact(text, fact);
  });

  it("the relative's clauses after it are never the speaker's", () => {
    expectNo("남편은 은행 다니다 퇴직하고 요즘 등산 다녀요", "user:");
    expectNo("엄마는 학교 다니다 그만두고 요즘 수영 다니셔", "user:");
  });
});

describe("`아직도`/`아직은` is an adverb, not a subject with 도/은", () => {
  it.each([
    ["아직도 현대차 다녀요", "user:work=현대차"],
    ["아직도 수원 살아", "user:residence=수원"],
    ["아직도 볼링 다녀요", "user:hobby=볼링"],
    ["아직은 대학생이에요", "user:work=대학생"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it("someone else's subject before it still makes the clause theirs", () => {
    expectNo("민지는 아직도 현대차 다녀요", "user:");
    expectNo("걔 아직도 수원 살아", "user:");
  });
});
