import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * A liked kind keeps the word that says which (`태국 음식 좋아해` gave `음식`; `맛있는 음식`, `좋은
 * 음악`, `국물 요리` likewise), as English `I like Thai food` already did; staying somewhere is living
 * there (`요즘 광주에서 지내요` gave nothing), not for a while (`방학 동안`, `I'm staying in Porto for
 * a week` gave the residence Porto) (bench/README.md, "session 65 (facts65)"). Sentences written for
 * these tests, none from a bench set.
 */
describe("a liked kind with the word that says which", () => {
  it.each([
    ["태국 음식 좋아해", "user:likes=태국 음식"],
    ["베트남 요리를 좋아해요", "user:likes=베트남 요리"],
    ["맛있는 음식 좋아해요", "user:likes=맛있는 음식"],
    ["좋은 음악 좋아해요", "user:likes=좋은 음악"],
    ["저는 뜨끈한 국물 요리를 좋아해요", "user:likes=국물 요리"],
    ["매운 음식 진짜 좋아해", "user:likes=매운 음식"],
    ["I like Thai food", "user:likes=Thai food"],
  ])("%s -> %s", (text, fact) => expectFact(text, fact));

  it.each([
    ["요즘 음식 좋아해", "user:likes=음식"],
    ["저는 음식 좋아해", "user:likes=음식"],
  ])("a time or the speaker is no kind: %s -> %s", (text, fact) => expectFact(text, fact));
});

describe("staying somewhere", () => {
  it.each([
    ["요즘 광주에서 지내요", "user:residence=광주"],
    ["지금은 강릉에서 지내고 있어요", "user:residence=강릉"],
    ["동생은 요즘 대구에서 지내요", "user's 동생:residence=대구"],
    ["I'm staying in Porto these days", "user:residence=Porto"],
  ])("%s -> %s", (text, fact) => expectFact(text, fact));

  it.each([
    "방학 동안 광주에서 지내요",
    "며칠 강릉에서 지내요",
    "광주에서 잘 지내요",
    "I'm staying in Porto for a week",
    "I'm staying in Leeds over Christmas",
  ])("no residence: %s", (text) => expectNo(text, "user:residence"));
});
