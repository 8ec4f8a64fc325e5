import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * Where one is from, said with the copula's connective (`고향이 여수라서 …`, `고향은 안동이고 …` after
 * a vowel: `고향은 춘천고 …`), chat's `임`, or of the family home (`본가가 제천이라`, `친정은
 * 순천이에요`, `광주 본가 내려가요`); English of the home town or the parents' place (`my hometown's
 * Dayton`, `my parents' place is in Bury`, `back home in Tulsa`). These gave nothing, or only the
 * residence said after them (bench/README.md, "session 65 (facts65)"). Sentences written for these
 * tests, none from a bench set.
 */
describe("a hometown by the copula's connective or the family home", () => {
  it.each([
    ["고향이 여수라서 바다는 질리게 봤어요", "user:hometown=여수"],
    ["고향은 춘천고 지금은 원주 살아요", "user:hometown=춘천"],
    ["고향은 춘천고 지금은 원주 살아요", "user:residence=원주"],
    ["본가가 제천이라 명절마다 내려가요", "user:hometown=제천"],
    ["친정이 순천이라서 애들 데리고 자주 가요", "user:hometown=순천"],
    ["본가는 포항임 ㅋㅋ", "user:hometown=포항"],
    ["이번 연휴에 광주 본가 내려가요", "user:hometown=광주"],
    ["my hometown's Dayton, I fly back every Christmas", "user:hometown=Dayton"],
    ["My parents' place is in Bury so I'm up there most weekends", "user:hometown=Bury"],
    ["Back home in Tulsa we never got snow like this", "user:hometown=Tulsa"],
  ])("%s -> %s", (text, fact) => expectFact(text, fact));

  it.each([
    // Moving into the family home makes it the residence, not the hometown.
    "원룸 빼고 부천 본가 들어왔어요",
    // Hearsay and questions.
    "고향은 김해라고 들었어",
    "고향이 어디라고 했지?",
    // Someone else's home town.
    "my sister's hometown is Reno",
    "my hometown is a tiny village nobody has heard of",
  ])("no hometown of the user: %s", (text) => expectNo(text, "user:hometown"));
});
