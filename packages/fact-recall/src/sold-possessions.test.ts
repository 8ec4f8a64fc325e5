import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * A car sold, scrapped or given away, named by its make or model (`sold the Volvo`, `쏘렌토는 작년에
 * 팔았어요`, `모닝은 폐차했어요`, `스쿠터는 동생 줬어`): a belonging that ended, as `sold my car`
 * already was; the sale was an event or nothing (bench/README.md, "session 64 (facts64)").
 * Sentences written for these tests, none from a bench set.
 */
describe("a possession sold, scrapped or given away", () => {
  it.each([
    ["I sold the Volvo in June", "user:belonging=Volvo (ended)"],
    ["we sold the Tacoma after the baby came", "user:belonging=Tacoma (ended)"],
    ["쏘렌토는 작년에 팔았어요.", "user:belonging=쏘렌토 (ended)"],
    ["EV6는 지난달에 팔았고 요즘 자전거 타요", "user:belonging=EV6 (ended)"],
    ["모닝은 폐차했어요.", "user:belonging=모닝 (ended)"],
    ["스쿠터는 동생 줬어", "user:belonging=스쿠터 (ended)"],
    ["그랜저는 아빠 드렸어요. 이제 트럭만 있어요.", "user:belonging=그랜저 (ended)"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each([
    ["I sold the tickets", "user:belonging"],
    ["he sold the Civic", "user:belonging"],
    ["남편이 쏘나타를 팔았어", "user:belonging"],
    ["모닝 커피 마셨어요", "user:belonging"],
    ["I sold the Volvo in June", "user:event"],
  ])("guard: %s", (text, prefix) => expectNo(text, prefix));
});
