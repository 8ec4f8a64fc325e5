import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * A job retired from is a job that ended: English `retired from the civil service` (a workplace by
 * its kind) and `I'm 70 and retired from the railway` (a second predicate after `and`); Korean
 * `교사였는데 정년퇴직하셨어요` (the job said before), `공무원 퇴직하셨어` (the job retired from) and
 * `공무원으로 정년퇴직하고` (the post) (bench/README.md, "session 63 (facts63)"). Sentences written
 * for these tests, none from a bench set.
 */
describe("a job retired from", () => {
  it.each([
    ["my aunt retired from the civil service in 2021", "user's aunt:work=civil service (ended)"],
    ["I'm 70 and retired from the railway", "user:work=railway (ended)"],
    ["I'm 64 and retired from the council, now I volunteer", "user:work=council (ended)"],
    ["my dad retired from the fire service last spring", "user's dad:work=fire service (ended)"],
    ["아버지는 간호사였는데 작년에 정년퇴직하셨어요.", "user's 아버지:work=간호사 (ended)"],
    ["우리 엄마 작년에 공무원 퇴직하셨어", "user's 엄마:work=공무원 (ended)"],
    ["삼촌이 올해 경찰 은퇴하셨어요", "user's 삼촌:work=경찰 (ended)"],
    ["저 작년에 은행 퇴직했어요", "user:work=은행 (ended)"],
    ["나 원래 소방관이었는데 작년에 은퇴했어", "user:work=소방관 (ended)"],
    ["고모는 구청 공무원으로 정년퇴직하시고 요즘 여행 다니세요", "user's 고모:work=공무원 (ended)"],
    ["구청 환경과 주무관으로 이십 년 일하다가 작년에 은퇴했어요", "user:work=주무관 (ended)"],
    ["형부는 증권사 다니다 퇴직하고 요즘 낚시 다녀요", "user's 형부:work=증권사 (ended)"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each([
    // A retirement to come, wished for, or someone else's.
    ["아빠 내년에 정년퇴직하셔", "user's 아빠:work"],
    ["빨리 은퇴하고 싶어", "user:work"],
    ["친구 아버지가 경찰이었는데 은퇴하셨대", "user:work"],
    ["I'd love to retire from the council", "user:work"],
    ["my friend's mum retired from the civil service", "user:work"],
  ])("guard: %s", (text, prefix) => expectNo(text, prefix));
});
