import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * English facts said plainly, without a cue word the rules knew, that fell to the `statement`
 * fallback: a sport kept up by how far one goes (`I run about 15 miles a week`) is a hobby, a
 * wedding to come (`we're getting married in June`) a plan (bench/README.md, "session 64
 * (facts64)"). Sentences
 * written for these tests, none from a bench set.
 */
describe("English facts said plainly", () => {
  it.each([
    ["I run about 20 miles a week, mostly before work", "user:hobby=run"],
    ["i bike like 100 km a week in summer", "user:hobby=bike"],
    ["I swim 40 lengths every morning", "user:hobby=swim"],
    ["we're getting married in June", "user:plan=getting married"],
    ["my brother is getting married next spring", "user's brother:plan=getting married"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each([
    ["I run about 20 miles a week, mostly before work", "user:statement"],
    ["if I ran 10 miles a week I'd be fit", "user:hobby"],
    ["I ran 10 miles yesterday", "user:hobby"],
    ["we're getting married in June", "user:statement"],
  ])("guard: %s", (text, prefix) => expectNo(text, prefix));
});
