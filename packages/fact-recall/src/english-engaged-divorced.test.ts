import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * An engagement or a divorce that happened is the status now, as a wedding was: `we got engaged over
 * the 4th` was kept as an event only (bench/README.md, "session 62 (facts62)"). Sentences written
 * for these tests, none from a bench set.
 */
describe("got engaged, got divorced", () => {
  it.each([
    ["we got engaged in Maui last month!!", "user:marital=engaged"],
    ["I just got engaged lol", "user:marital=engaged"],
    ["Sam and I got engaged on Christmas Eve", "user:marital=engaged"],
    ["I got divorced back in 2019", "user:marital=divorced"],
    ["I've been divorced for six years now", "user:marital=divorced"],
    ["my brother got engaged last week", "user's brother:marital=engaged"],
    ["we got married in 2022", "user:marital=married"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each([
    "we're getting engaged next year",
    "if we got engaged I'd tell you",
    "did you get engaged?",
    "we haven't gotten engaged yet",
    "I was engaged once but it didn't work out",
    "my coworker says she got engaged",
  ])("guard: %s", (text) => expectNo(text, "user:marital"));
});
