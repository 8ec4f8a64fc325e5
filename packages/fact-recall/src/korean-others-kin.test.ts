import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * A relative of a friend, a neighbour or a colleague (`친구 남편이`, `부장님 딸이`, `동기 형이`) is
 * someone else's relative: `친구 남편이 소방관인데` was stored as the work of the user's 친구
 * (bench/README.md, "session 62 (facts62)"). Sentences written for these tests, none from a bench set.
 */
describe("a relative of someone who is no kin is someone else", () => {
  it.each([
    "친구 남편이 경찰관이에요",
    "친구 남편 소방관이야",
    "부장님 딸이 연세대 다녀요",
    "우리 팀장님 아들은 고등학생이에요",
    "동기 형이 제주도 살아",
    "옆집 이웃 아들이 의사래요",
    "선배 와이프가 간호사래",
    "여친 동생은 대전에 살아요",
    // A friend or a colleague of a relative is someone else too (review62).
    "남편 친구가 의사야",
    "동생 친구가 경찰이야",
    "우리 엄마 동료는 부산 살아요",
    "아빠 친구 아들이 변호사래",
  ])("no fact: %s", (text) => expectNo(text, ""));

  it.each([
    ["친구가 토스 다녀", "user's 친구:work=토스"],
    ["남편은 소방관이에요", "user's 남편:work=소방관"],
    ["제 친구는 간호사예요", "user's 친구:work=간호사"],
    ["엄마 아빠는 부산 사세요", "user's 엄마:residence=부산"],
    ["친구 만나는 거 좋아해", "user:likes=친구 만나기"],
    ["저 친구 남편 덕분에 대전 살아요", "user:residence=대전"],
    ["남편은 친구가 많아요. 남편이 의사예요", "user's 남편:work=의사"],
  ])("kin of one's own, or the speaker: %s", (text, fact) => expectFact(text, fact));
});
