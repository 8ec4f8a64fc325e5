import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * Where a relative lives: the honorific `-시는데` (`이모가 광주에 사시는데 …` was rewritten `살는데`,
 * which no rule read), how one lives there (`여수에 혼자 사세요`), the side of the family before the
 * relation (`외가 할머니가`, `친정 아빠는`), a grandparent by side (`외할머니`), a relative with `님` (`장모님은`: was read as a third
 * person's topic), a neighbourhood after its town (`전주 효자동` keeps `전주`); English `lives on her
 * own in`, `is 90 and still lives in`, and a former spouse (`my ex-wife lives in Denver`) as a person
 * of their own: not the user, not the wife (bench/README.md, "session 65 (facts65)"). Sentences
 * written for these tests, none from a bench set.
 */
describe("a relative's residence", () => {
  it.each([
    ["이모가 광주에 사시는데 가끔 반찬 보내주세요", "user's 이모:residence=광주"],
    ["외할머니는 여수에 혼자 사세요", "user's 외할머니:residence=여수"],
    ["외가 할머니가 순천에 사셔서 방학마다 가요", "user's 할머니:residence=순천"],
    ["친정 아빠는 아직 김천에 사시는데 자주 못 가요", "user's 아빠:residence=김천"],
    ["장모님은 청주 율량동에 혼자 사세요", "user's 장모님:residence=청주 율량동"],
    ["저는 요즘 연동 원룸에서 혼자 살아요", "user:residence=연동"],
    ["전남편은 대전에 살아요", "user's 전남편:residence=대전"],
    ["My nan lives on her own in Wigan", "user's nan:residence=Wigan"],
    ["my grandad is 88 and still lives in Hull", "user's grandad:residence=Hull"],
    ["My ex-wife lives in Denver with her new partner", "user's ex-wife:residence=Denver"],
    ["I live alone in Leeds", "user:residence=Leeds"],
  ])("%s -> %s", (text, fact) => expectFact(text, fact));

  it.each([
    // Another person's home is not the user's; a former spouse is not the spouse.
    ["My ex-wife lives in Denver with her new partner", "user:residence"],
    ["My ex-wife lives in Denver with her new partner", "user's wife"],
    ["전남편은 대전에 살아요", "user:residence"],
    ["전남편은 대전에 살아요", "user's 남편"],
    // A colleague with `님` stays a third person's topic.
    ["김 과장님은 부산에 사세요", "user"],
  ])("%s: nothing starting %s", (text, prefix) => expectNo(text, prefix));

  // `전 남편이랑` is `저는 남편이랑`: the speaker lives there, with her husband.
  it("전 남편이랑 부산에 살아요 -> user's residence", () => expectFact("전 남편이랑 부산에 살아요", "user:residence=부산"));
});
