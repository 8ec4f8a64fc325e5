import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * Grandchildren as `손주` (was no relation the rules knew, so `손주가 셋 있는데 다 울산에 살아요` gave
 * the user the residence), a bare `다`/`전부` after relatives just named is theirs (as `다들` and
 * `모두` were), and a relative of someone's household (`이장님 댁 손주가`, `김씨네 아들이`) is no one
 * of the user's. English: relatives who live somewhere give the user no residence (bench/README.md,
 * "session 65 (facts65)"). Sentences written for these tests, none from a bench set.
 */
describe("grandchildren and the relatives just named", () => {
  it.each([
    ["손주가 셋 있는데 다 울산에 살아요.", "user's 손주:residence=울산"],
    ["손주가 셋 있는데 다 울산에 살아요.", "user:family=손주 셋"],
    ["딸이 둘 있는데 전부 청주에 살아요", "user's 딸:residence=청주"],
    ["우리 손주가 올해 중학교 들어갔어요", "user's 손주:school=중학교"],
  ])("%s -> %s", (text, fact) => expectFact(text, fact));

  it.each([
    ["손주가 셋 있는데 다 울산에 살아요.", "user:residence"],
    ["이장님 댁 손주가 올해 중학교 들어갔어요", "user's 손주"],
    ["김씨네 아들이 포항 살아요", "user's 아들"],
    ["I have two sons, both live in Leeds", "user:residence"],
  ])("%s: nothing starting %s", (text, prefix) => expectNo(text, prefix));
});
