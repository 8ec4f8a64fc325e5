import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * A car one has, by its make and model (`I have a green 2021 Subaru Crosstrek`), is a belonging:
 * only `drive a …` was read, and the clause was kept as a bare statement (bench/README.md, "session
 * 62 (facts62)"). Sentences written for these tests, none from a bench set.
 */
describe("a car had, by its make", () => {
  it.each([
    ["I have a silver 2018 Honda Odyssey", "user:belonging=Honda Odyssey"],
    ["i have a 2012 toyota tacoma lol", "user:belonging=toyota tacoma"],
    ["we own an old Ford Ranger and a boat", "user:belonging=Ford Ranger"],
    ["I've got a used Kia Soul", "user:belonging=Kia Soul"],
    ["I have a Tesla", "user:belonging=Tesla"],
    ["my dad has a Chevy Silverado", "user's dad:belonging=Chevy Silverado"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each([
    "do you have a Honda?",
    "I have a Ford meeting tomorrow",
    "I have a friend at Toyota",
    "I wish I had a Tesla",
    "my neighbor has a Jeep Wrangler",
  ])("guard: %s", (text) => expectNo(text, "user:belonging"));
});
