import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * Facts other than a pet's said inside a request or before a question: a statement, a comma, then
 * the question (`My wife's a freelance electrician, does she need to register?`: a sentence ending
 * in `?` was skipped whole), a relative's health by the `'s` of `is` (`my son's coeliac, …`), a
 * birthday by its date first before a polite request (`5월 2일이 제 생일이라 그날은 비워주세요`: the
 * request's `-세요` was read as a senior's honorific, so the clause was no one's), and a sprain said
 * without a particle (`발목 접질렸어`) (bench/README.md, "session 65 (facts65)"). Sentences written
 * for these tests, none from a bench set.
 */
describe("facts inside requests and before questions", () => {
  it.each([
    ["My wife's a freelance electrician, does she need to register for VAT?", "user's wife:work=freelance electrician"],
    ["my son's coeliac, can you suggest a bakery near Didsbury", "user's son:health=coeliac"],
    ["I live in Harrogate, any good walks nearby?", "user:residence=Harrogate"],
    ["5월 2일이 제 생일이라 그날은 비워주세요", "user:birthday=5월 2일"],
    ["10월 9일이 내 생일이야 기억해 줘", "user:birthday=10월 9일"],
    ["어제 발목 접질렸어 붓기 빼는 법 알려줘", "user:health=발목 부상"],
    ["손목을 삐끗했어요", "user:health=손목 부상"],
  ])("%s -> %s", (text, fact) => expectFact(text, fact));

  it.each([
    // A question first, a hypothetical, a senior's honorific without a request.
    ["do you think my son is ready for school?", "user's son"],
    ["If I moved to Harrogate, would that be cheaper?", "user:residence"],
    ["엄마가 5월 2일에 오세요", "user:birthday"],
  ])("%s: nothing starting %s", (text, prefix) => expectNo(text, prefix));

  // A senior's honorific stays theirs.
  it("엄마가 부산에 사세요 -> the mother's home", () => expectFact("엄마가 부산에 사세요", "user's 엄마:residence=부산"));
});
