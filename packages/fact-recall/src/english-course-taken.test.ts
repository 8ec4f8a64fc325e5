import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * A course one is taking now (`I'm taking an online CART captioning course`) is what one studies:
 * it was stored as a plan, `an online CART captioning course` (bench/README.md, "session 62
 * (facts62)"). Sentences written for these tests, none from a bench set.
 */
describe("a course being taken", () => {
  it.each([
    ["I'm taking an online medical billing course at night", "user:study=medical billing"],
    ["I've been doing a night class in accounting", "user:study=accounting"],
    ["im taking a welding class on Tuesdays", "user:study=welding"],
    ["I'm enrolled in a 12-week coding program", "user:study=coding"],
    ["my wife is taking a nursing course", "user's wife:study=nursing"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each([
    ["I'm taking a trip to Denver next week", "user:study"],
    ["are you taking a class?", "user:"],
    ["I'm not taking a class this term", "user:study"],
    ["if I took a welding class I'd love it", "user:"],
    ["I'm taking an online course at night", "user:study"],
    // `in` + a time or a way of taking it is no subject (review62).
    ["I'm taking a class in June", "user:study"],
    ["I'm taking a course in the evening", "user:study"],
    ["I've been taking a class in the mornings", "user:study"],
    ["I'm taking a course in two weeks", "user:study"],
    ["I'm taking a class in person", "user:study"],
    ["I'm taking a class in the spring", "user:study"],
  ])("guard: %s", (text, prefix) => expectNo(text, prefix));
});
