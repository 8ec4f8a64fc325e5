import { describe, expect, it } from "vitest";
import { expectFact, expectNo, pairs } from "./test-support.js";

/**
 * Classes from the English labelled sets' wrong facts and misses (bench/README.md, "session 60
 * (facts60)"). The sentences are written for these tests: none is taken from a labelled bench set.
 */
describe("what one does not have is no constraint", () => {
  it.each([
    "I don't have a cat, that's my neighbour's",
    "i dont have a car at the moment",
    "I do not have any siblings",
    "We don't have kids yet, the first is due in May",
    "I don't own a dog, I just walk them",
  ])("%s", (text) => expectNo(text, "user:constraint"));

  it("what one cannot take still is", () => {
    expectFact("I can't have gluten", "user:constraint=cannot have gluten");
    expectFact("I don't eat shellfish", "user:constraint=cannot eat shellfish");
    expectFact("I'm not allowed to drive until the cast is off", "user:constraint=cannot drive until the cast is off");
  });

  it("a negated possession states nothing else either", () => {
    expect(pairs("I don't have a dog, my sister does")).toEqual([]);
  });
});
