import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * A job move to a kind of employer, not a town: `I moved from Deloitte to a startup` gave the
 * residence `a startup` (and `Deloitte` a home left); `a/an` and a firm's kind after `to` is a
 * workplace. Korean `한결회계법인에서 딜로이트로 옮겼어요` and `삼성에서 스타트업으로 옮겼어요` gave
 * nothing: one side a kind of employer by its ending is a job move. Towns stay homes. Sentences
 * written for these tests, none from a bench set.
 */
describe("a job move to a kind of employer", () => {
  it.each([
    ["I moved from Deloitte to a startup", "user:work=startup"],
    ["I moved from Deloitte to a startup", "user:work=Deloitte (ended)"],
    ["I switched from Google to a small AI startup last spring", "user:work=small AI startup"],
    ["I went from Accenture to an agency in Soho", "user:work=agency"],
    ["삼성에서 스타트업으로 옮겼어요", "user:work=스타트업"],
    ["삼성에서 스타트업으로 옮겼어요", "user:work=삼성 (ended)"],
    ["한결회계법인에서 딜로이트로 옮겼어요", "user:work=딜로이트"],
    ["네이버에서 작은 에이전시로 옮겼어", "user:work=에이전시"],
    ["We moved from Denver to a farm", "user:residence=Denver (ended)"],
  ])("%s -> %s", (text, fact) => expectFact(text, fact));

  it.each([
    ["I moved from Deloitte to a startup", "user:residence"],
    ["I went from Accenture to an agency in Soho", "user:residence"],
    ["서울에서 대구로 옮겼어요", "user:work"],
    ["We moved from Denver to a farm", "user:work"],
  ])("%s: nothing starting %s", (text, prefix) => expectNo(text, prefix));
});
