import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * A pastime given up, said with 그만두다 or 접다 and the pastime as topic or object (`드럼은 9월에
 * 접었어`, `테니스는 작년에 그만뒀어요`), is a hobby that ended: it gave nothing (bench/README.md,
 * "session 62 (facts62)"). Sentences written for these tests, none from a bench set.
 */
describe("a Korean pastime given up", () => {
  it.each([
    ["골프는 작년에 접었어요", "user:hobby=골프 (ended)"],
    ["기타는 3월에 그만뒀어", "user:hobby=기타 (ended)"],
    ["저 필라테스 결국 접었어요", "user:hobby=필라테스 (ended)"],
    ["요가 그만뒀음", "user:hobby=요가 (ended)"],
    ["수영은 재작년에 관뒀습니다", "user:hobby=수영 (ended)"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each([
    ["회사 그만뒀어", "user:hobby"],
    ["운동을 그만뒀어요", "user:"],
    ["친구는 테니스 그만뒀대", "user:"],
    ["테니스 그만둘까?", "user:"],
    ["수영 그만두고 싶어", "user:"],
    ["골프는 절대 안 접어요", "user:hobby=골프 (ended)"],
  ])("guard: %s", (text, prefix) => expectNo(text, prefix));
});
