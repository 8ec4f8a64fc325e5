import { describe, expect, it } from "vitest";
import { expectFact, expectNo, pairs } from "./test-support.js";

/**
 * What belongs to a relative is the relative's, not the speaker's: `아내 이름은 민지예요` names the
 * wife (the `내` that ends `아내` was read as `내 이름은`, "my name is", so the user's own name
 * fact was replaced by the wife's), and `남편 차는 테슬라예요` is the husband's car. Sentences
 * written for this test.
 */
describe("a relative's name or car is not the speaker's", () => {
  it.each([
    ["아내 이름은 민지예요.", "user:family=아내 민지"],
    ["제 아내 이름은 민지예요.", "user:family=아내 민지"],
    ["My wife's name is Minji.", "user:family=wife named Minji"],
  ])("%s -> %s, no name of the user", (text, fact) => {
    expectFact(text, fact);
    expectNo(text, "user:name");
  });

  it.each(["남편 차는 테슬라예요.", "아내 차는 아반떼예요."])("%s: no car of the user", (text) => {
    expectNo(text, "user:belonging");
    expect(pairs(text).some((p) => p.startsWith("user's ") && p.includes(":belonging=차 "))).toBe(true);
  });

  // The speaker's own stay theirs.
  it.each([
    ["제 이름은 김철수예요.", "user:name=김철수"],
    ["내 이름은 철수야.", "user:name=철수"],
    ["이름은 철수예요.", "user:name=철수"],
    ["My name is Minji.", "user:name=Minji"],
    ["제 차는 아반떼예요.", "user:belonging=차 아반떼"],
    ["내 차는 아반떼야.", "user:belonging=차 아반떼"],
  ])("guard: %s -> %s", (text, fact) => expectFact(text, fact));
});
