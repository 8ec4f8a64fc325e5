import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * The hometown forms of session 65 (facts65) took a time for the town (review65): the word before
 * `본가 내려가요` when it says when (`다음주 본가 내려가요`, `설날 본가`, `추석 연휴 본가`, `명절 본가`),
 * and after `Back home in` a month, a weekday or a season (`Back home in March it snowed`), or the
 * town with the `I` that starts the next clause (`Back home in Tulsa I used to …` gave `Tulsa I`).
 * Sentences written for these tests, none from a bench set.
 */
describe("a hometown is a town, not a time", () => {
  it.each([
    ["다음주 본가 내려가요", "user:hometown"],
    ["설날 본가 내려가요", "user:hometown"],
    ["추석 연휴 본가 내려가요", "user:hometown"],
    ["명절 본가 내려가서 푹 쉬었어요", "user:hometown"],
    ["Back home in March it snowed for a week.", "user:hometown"],
    ["Back home in Summer we swam in the lake.", "user:hometown"],
    ["Back home in Christmas week everyone came over.", "user:hometown"],
  ])("%s: nothing starting %s", (text, prefix) => expectNo(text, prefix));

  it.each([
    ["이번 추석에 광주 본가 내려가요", "user:hometown=광주"],
    ["전주 본가 다녀왔어요", "user:hometown=전주"],
    ["Back home in Tulsa I used to ride horses.", "user:hometown=Tulsa"],
    ["Back home in Eau Claire I never locked the door.", "user:hometown=Eau Claire"],
    ["my hometown's Dayton, I fly back every Christmas", "user:hometown=Dayton"],
  ])("%s -> %s", (text, fact) => expectFact(text, fact));
});
