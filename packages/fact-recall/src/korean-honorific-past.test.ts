import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * A verb in the past honorific (`하셨어요`, `받으셨습니다`, `다니셨어`) carries the senior an earlier
 * sentence named, like the present one (`하세요`): `할머니는 … 이세요. 작년에 무릎 수술 하셨어요`
 * gave the user's health (bench/README.md, "session 62 (facts62)"). Sentences written for these
 * tests, none from a bench set.
 */
describe("the past honorific keeps the senior as the subject", () => {
  it.each([
    ["할아버지는 올해 아흔이세요. 작년에 어깨 수술 하셨어요.", "user's 할아버지:health=어깨"],
    ["아버지는 공무원이세요. 재작년에 허리 수술 받으셨습니다.", "user's 아버지:health=허리"],
    ["엄마는 대구 사셔. 작년에 무릎 수술 하셨어", "user's 엄마:health=무릎"],
    ["시어머니는 예순다섯이세요. 지난달에 골프 배우기 시작하셨어요", "user's 시어머니:hobby=골프"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each([
    ["할머니는 여든이세요. 작년에 무릎 수술 하셨어요.", "user:health"],
    ["작년에 무릎 수술 하셨어요.", "user:"],
    ["선생님이 작년에 허리 수술 받으셨대요", "user:"],
    ["요즘 골프 치셨어요?", "user:"],
  ])("not the speaker's: %s", (text, prefix) => expectNo(text, prefix));

  it.each([
    ["어제 커피 마셨어요. 작년에 무릎 수술 했어요", "user:health=무릎"],
    ["할아버지는 작년에 돌아가셨어요. 저는 서울 살아요", "user:residence=서울"],
  ])("the speaker's own: %s", (text, fact) => expectFact(text, fact));
});
