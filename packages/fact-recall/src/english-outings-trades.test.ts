import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * Homes said with a direction (`live out in`), utility and site trades, a past trade for a named
 * employer, outings kept up (`go camping`), and a relative's `now he ...` after a comma
 * (bench/README.md, "session 61 (facts61)"). Sentences written for these tests, none from a bench set.
 */
describe("a home with a direction word", () => {
  it.each([
    ["we live out in Cle Elum, about an hour from work", "user:residence=Cle Elum"],
    ["I live up in Bellingham now", "user:residence=Bellingham"],
    ["my sister lives down in Yuma", "user's sister:residence=Yuma"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each(["do you live out in Cle Elum?", "if I lived out in Cle Elum I'd need a truck"])("guard: %s", (text) =>
    expectNo(text, "user:residence"),
  );
});

describe("utility and site trades", () => {
  it.each([
    ["my uncle is a lineman for PG&E in Fresno", ["user's uncle:work=lineman", "user's uncle:residence=Fresno"]],
    ["I'm a crane operator", ["user:work=crane operator"]],
    ["I'm a building inspector for the county", ["user:work=building inspector"]],
  ])("%s", (text, facts) => {
    for (const fact of facts) expectFact(text, fact);
  });
});

describe("a past trade for a named employer", () => {
  it.each([
    ["I used to read meters for PSE but I quit in 2018", "user:work=PSE (ended)"],
    ["used to drive for Lyft", "user:work=Lyft (ended)"],
    ["I used to install cable for Comcast", "user:work=Comcast (ended)"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each([
    "I used to cook for Dad on Sundays",
    "I used to vote for Smith",
    "my brother used to drive for Lyft",
    "I used to root for Boston",
  ])("guard: %s", (text) => expectNo(text, "user:work"));
});

describe("outings kept up", () => {
  it.each([
    ["we go camping at Lake Chelan most weekends", "user:hobby=camping"],
    ["I go fishing every Saturday", "user:hobby=fishing"],
    ["my dad retired last year, now he just goes fishing on the river every day", "user's dad:hobby=fishing"],
    ["My wife goes bowling on Tuesdays", "user's wife:hobby=bowling"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each(["I'm going fishing tomorrow", "should I go camping?", "if we go camping it'll rain", "my coworker goes fishing a lot"])(
    "guard: %s",
    (text) => expectNo(text, "user:hobby"),
  );
});
