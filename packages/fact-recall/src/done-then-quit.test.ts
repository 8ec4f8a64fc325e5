import { describe, expect, it } from "vitest";
import { expectFact, expectNo, pairs } from "./test-support.js";

/**
 * A pastime done, then given up, in one sentence: Korean `-는데/-지만` then a verb of giving up
 * with no topic of its own (`요가는 재작년까지 했는데 허리 때문에 그만뒀어요`: the two clauses were
 * read apart, and the second names nothing), a part-time job at a place left (`스타벅스 알바 지난달에
 * 그만뒀어`), `까지만` no longer cut as the connective `-지만`; English a group one sang or played in
 * (`used to sing in the Hexham choir but gave it up`) and a shift at a place (`used to do the late
 * shift at a chip shop`), both gave a statement. Sentences written for these tests, none from a bench set.
 */
describe("done, then given up", () => {
  it.each([
    ["요가는 재작년까지 했는데 허리 때문에 그만뒀어요", "user:hobby=요가 (ended)"],
    ["결혼 전에는 테니스를 꽤 오래 쳤는데 이사 오고 나서 그만뒀어요", "user:hobby=테니스 (ended)"],
    ["예전엔 등산도 다녔는데 이제는 안 합니다", "user:hobby=등산 (ended)"],
    ["나 스타벅스 알바 지난달에 그만뒀어", "user:work=스타벅스 (ended)"],
    ["빵집 주말알바 이번 달까지만 하고 그만뒀어요", "user:work=빵집 (ended)"],
    ["I used to sing in the Hexham choir but gave it up when I moved", "user:hobby=choir (ended)"],
    ["I used to do the late shift at a chip shop but I packed it in", "user:work=chip shop (ended)"],
    ["I sing in a choir", "user:hobby=choir"],
    ["I play in a brass band", "user:hobby=brass band"],
    ["I do the night shift at a care home", "user:work=care home"],
  ])("%s -> %s", (text, fact) => expectFact(text, fact));

  it.each([
    // Someone else gave it up.
    ["요가는 재작년까지 했는데 동생은 그만뒀어요", "user:hobby=요가 (ended)"],
    // Taught is a job, which the rules give no value for here: no pastime.
    ["예전에는 피아노를 가르쳤지만 지금은 그만두었습니다.", "user:hobby"],
    ["I play in a brass band", "user:hobby=in "],
  ])("%s: nothing starting %s", (text, prefix) => expectNo(text, prefix));

  it("the pastime given up is not also one kept up", () =>
    expect(pairs("요가는 재작년까지 했는데 허리 때문에 그만뒀어요")).not.toContain("user:hobby=요가"));
});
