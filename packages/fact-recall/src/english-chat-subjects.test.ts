import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * Who a chat clause is about when it does not say it the full way: a past verb without `I`, a
 * parent by the word alone, `<name> and I`, a relative with where they live, an age in words
 * (bench/README.md, "session 61 (facts61)"). Sentences written for these tests, none from a bench set.
 */
describe("a past verb without its I", () => {
  it.each([
    ["tore my ACL in March playing pickup", "user:health=tore ACL"],
    ["grew up in Duluth, moved out here for school", "user:hometown=Duluth"],
    ["sold the truck in May, it had 200k on it", "user:belonging=truck (ended)"],
    ["Got married last fall, best day ever", "user:marital=married"],
    ["quit vaping in January", "user:health=vaping (ended)"],
    ["stopped dip two years ago", "user:health=dip (ended)"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each(["love it lol", "Sold out by noon!", "broke the record again"])("guard: %s", (text) => {
    expectNo(text, "user:likes");
    expectNo(text, "user:health");
    expectNo(text, "user:belonging");
  });
});

describe("a parent by the word alone", () => {
  it.each([
    ["Mom's got early dementia, it's been hard", "user's mom:health=dementia"],
    ["dad is diabetic too", "user's dad:health=diabetic"],
    ["Grandma lives in Tulsa", "user's grandma:residence=Tulsa"],
    ["thanks! Dad's 70 next week", "user's dad:age=70"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each(["Mom, I moved to Reno", "Is dad diabetic?", "Dad jokes are the best lol"])("guard: %s", (text) => {
    expectNo(text, "user's mom");
    expectNo(text, "user's dad");
  });
});

describe("a name and I", () => {
  it.each([
    ["Sam and I aren't married, been together 6 years", "user:marital=not married"],
    ["Priya and I got married in 2020", "user:marital=married"],
    ["Leo and I live in Tacoma", "user:residence=Tacoma"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each(["Sam and Leo aren't married", "Are Sam and I married?", "Sam and Jo live in Tacoma"])("guard: %s", (text) => {
    expectNo(text, "user:marital");
    expectNo(text, "user:residence");
  });
});

describe("a relative with where they live", () => {
  it.each([
    ["my grandpa in Boise turned 90 today!", ["user's grandpa:residence=Boise", "user's grandpa:age=90"]],
    ["My aunt in San Diego is a nurse", ["user's aunt:residence=San Diego", "user's aunt:work=nurse"]],
  ])("%s", (text, facts) => {
    for (const fact of facts) expectFact(text, fact);
  });

  it("a lower-case word after `in` is no place", () => expectNo("my sister in law is a nurse", "user's sister:residence"));
});

describe("an age in words, and a second predicate by `and plays`", () => {
  it.each([
    ["my son's nine and plays Little League baseball", ["user's son:age=nine", "user's son:hobby=Little League baseball"]],
    ["My daughter is six years old", ["user's daughter:age=six"]],
    ["my nephew just turned twelve", ["user's nephew:age=twelve"]],
  ])("%s", (text, facts) => {
    for (const fact of facts) expectFact(text, fact);
  });

  it.each(["I'm one happy camper", "I'm two weeks behind on laundry", "my son's one of the tallest in his class", "I'm five minutes away"])(
    "guard: %s",
    (text) => {
      expectNo(text, "user:age");
      expectNo(text, "user's son:age");
    },
  );
});
