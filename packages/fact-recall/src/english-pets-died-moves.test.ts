import { describe, expect, it } from "vitest";
import { expectFact, expectNo, pairs } from "./test-support.js";

/**
 * A pet that died is an ended pet; a move from one place to another ends the first residence and
 * starts the second; a home moved out of is an ended residence (bench/README.md, "session 61
 * (facts61)"). Sentences written for these tests, none from a bench set.
 */
describe("a pet that died", () => {
  it.each([
    ["our old beagle passed away last winter", "user:pet=beagle (ended)"],
    ["My cat died in August, I still miss him", "user:pet=cat (ended)"],
    ["my sweet old lab crossed the rainbow bridge", "user:pet=lab (ended)"],
    ["Our dog Rufus passed away in May", "user:pet=dog (ended)"],
    ["we had to put our cat down last week", "user:pet=cat (ended)"],
    ["my hamster just died lol", "user:pet=hamster (ended)"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it("no live pet beside the dead one", () => expect(pairs("Our dog Rufus passed away in May")).not.toContain("user:pet=dog named Rufus"));

  it.each([
    "my sister's cat died last week",
    "Did your dog pass away?",
    "if my cat died I'd be a wreck",
    "my dog didn't die, he just ran off lol",
    "my neighbor's dog passed away",
  ])("guard: %s", (text) => expectNo(text, "user:pet"));
});

describe("a move from one place to another", () => {
  it.each([
    ["we moved from Fresno to Sacramento last year", ["user:residence=Sacramento", "user:residence=Fresno (ended)"]],
    ["I relocated from San Jose to Boise in 2021", ["user:residence=Boise", "user:residence=San Jose (ended)"]],
    ["I just moved back from Denver to Omaha", ["user:residence=Omaha", "user:residence=Denver (ended)"]],
  ])("%s", (text, facts) => {
    for (const fact of facts) expectFact(text, fact);
    expectNo(text, "user:hometown");
  });

  it("a move from one place alone stays a hometown", () => expectFact("I moved here from Tulsa", "user:hometown=Tulsa"));

  it.each(["my brother moved from Reno to Austin", "if we moved from Reno to Austin I'd cry", "Did you move from Reno to Austin?"])(
    "guard: %s",
    (text) => expectNo(text, "user:residence"),
  );
});

describe("a home moved out of", () => {
  it.each([
    ["I moved out of my apartment in Midtown in March", "user:residence=apartment in Midtown (ended)"],
    ["we've moved out of our flat in Leith", "user:residence=flat in Leith (ended)"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each([
    "I moved out of the way",
    "I moved out of my way to help",
    "my roommate moved out of our flat",
    "I haven't moved out of my apartment yet",
  ])("guard: %s", (text) => expectNo(text, "user:residence"));
});
