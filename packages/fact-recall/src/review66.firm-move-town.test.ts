import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * A move between a town and a kind of employer (review66, session 66): facts66's job-move-kind
 * rule read `서울에서 스타트업으로 옮겼어요` as a job left at 서울 (work=서울, ended), and English
 * `I moved from Boston to a startup` kept the home-move reading (residence=a startup, Boston a home
 * left). A town is no workplace and a startup no home. Sentences written for these tests.
 */
describe("a town on one side of a move to or from a kind of employer", () => {
  it.each([
    ["서울에서 스타트업으로 옮겼어요", "user:work=서울"],
    ["강남구에서 로펌으로 옮겼어요", "user:work=강남구"],
    ["스타트업에서 부산으로 옮겼어요", "user:work=부산"],
    ["I moved from Boston to a startup", "user:residence=a startup"],
    ["We moved from London to an agency", "user:residence"],
  ])("%s: nothing starting %s", (text, prefix) => expectNo(text, prefix));

  it.each([
    ["삼성에서 스타트업으로 옮겼어요", "user:work=스타트업"],
    ["삼성에서 스타트업으로 옮겼어요", "user:work=삼성 (ended)"],
    ["I moved from Deloitte to a startup", "user:work=startup"],
    ["I moved from Boston to Denver", "user:residence=Denver"],
    ["서울에서 대구로 이사했어요", "user:residence=대구"],
  ])("%s -> %s", (text, fact) => expectFact(text, fact));
});
