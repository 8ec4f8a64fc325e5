import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * Not drinking something is a habit, not a limit (`I don't drink coffee` is no `cannot drink`); the
 * drink kept instead is liked; a substance given up by any of its verbs is an ended habit
 * (bench/README.md, "session 61 (facts61)"). Sentences written for these tests, none from a bench set.
 */
describe("not drinking is no constraint", () => {
  it.each(["I don't drink tea, never have", "i dont drink at all", "I never drink beer", "My dad doesn't drink wine"])("%s", (text) => {
    expectNo(text, "user:constraint");
    expectNo(text, "user's dad:constraint");
  });

  it("a limit stays one", () => {
    expectFact("I can't drink milk", "user:constraint=cannot drink milk");
    expectFact("I'm not allowed to drink alcohol on these pills", "user:constraint=cannot drink alcohol on these pills");
    expectFact("I don't eat pork", "user:constraint=cannot eat pork");
  });
});

describe("the drink kept instead is liked", () => {
  it.each([
    ["I don't drink tea at all, just Dr Pepper", "user:likes=Dr Pepper"],
    ["i never drink beer, only cider", "user:likes=cider"],
    ["I don't drink soda, mostly sparkling water", "user:likes=sparkling water"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each([
    "Do you drink tea, just green?",
    "if I didn't drink tea, just water, I'd sleep",
    "my wife doesn't drink coffee, just tea",
    // `just` saying how it was said, not what is drunk (review61).
    "I don't drink coffee, just kidding",
    "I never drink at night, just saying",
  ])("guard: %s", (text) => expectNo(text, "user:likes"));
});

describe("a substance given up, by any of its verbs", () => {
  it.each([
    ["I quit chewing tobacco when my son was born", "user:health=chewing tobacco (ended)"],
    ["I've cut out carbs since March", "user:health=carbs (ended)"],
    ["I kicked energy drinks last year", "user:health=energy drinks (ended)"],
    ["I stopped dip two years ago", "user:health=dip (ended)"],
    // The gerund's object is what was given up (review61: `quit drinking coffee` was `drinking`, alcohol).
    ["I quit drinking coffee last year", "user:health=coffee (ended)"],
    ["I gave up eating red meat", "user:health=red meat (ended)"],
    ["I quit drinking last year", "user:health=drinking (ended)"],
    ["I've completely cut out junk food", "user:health=junk food (ended)"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each([
    "Should I quit chewing tobacco?",
    "I haven't quit chewing tobacco",
    "if I cut out carbs I'd be miserable",
    "my brother quit dip lol jk",
  ])("guard: %s", (text) => expectNo(text, "user:health"));
});
