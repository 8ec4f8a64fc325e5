import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * A pet with two words before its kind (`a retired racing greyhound`, `an old rescue pit bull`) is a
 * pet: only one was read, and the clause was kept as a bare statement (bench/README.md, "session 62
 * (facts62)"). Sentences written for these tests, none from a bench set.
 */
describe("a pet with two words before its kind", () => {
  it.each([
    ["we have a retired racing greyhound", "user:pet=retired racing greyhound"],
    ["I've got a black rescue dog", "user:pet=black rescue dog"],
    ["we adopted a senior rescue beagle last year", "user:pet=rescue beagle"],
    ["I have a grey tabby cat", "user:pet=grey tabby cat"],
    ["I have a springer spaniel", "user:pet=springer spaniel"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each([
    "I have a cousin with dogs",
    "I have a friend who has a cat",
    "I have a neighbor whose dog barks",
    "I have a lot of cats in my building",
    "do you have a retired racing greyhound?",
    "my sister has a retired racing greyhound",
  ])("guard: %s", (text) => expectNo(text, "user:pet"));
});
