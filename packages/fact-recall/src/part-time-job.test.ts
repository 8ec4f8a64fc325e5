import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * A part-time job (`알바`) says what it is by the role or the place it names: `GS25 편의점에서
 * 알바해요` (was `알바`), `카페에서 바리스타로 알바했었어요` (the role, ended), `물류센터 알바 뛰어요`,
 * `빵집 알바 주2일 해요` (a frequency between: was nothing), `빵집 야간 알바 하는 중인데` (the shift's
 * time passed over). English has no `알바`; its side of the class is the shift at a place (`I do the
 * night shift at a care home`, done-then-quit.test.ts). Sentences written for these tests, none
 * from a bench set.
 */
describe("a part-time job by its role or place", () => {
  it.each([
    ["주말엔 GS25 편의점에서 알바해요", "user:work=편의점"],
    ["대학 때 카페에서 바리스타로 알바했었어요", "user:work=바리스타 (ended)"],
    ["주말에 물류센터 알바 뛰어요", "user:work=물류센터"],
    ["빵집 알바 주2일 해요", "user:work=빵집"],
    ["빵집 야간 알바 하는 중인데 힘들어", "user:work=빵집"],
    ["나 알바 해", "user:work=알바"],
    ["I do the night shift at a care home", "user:work=care home"],
  ])("%s -> %s", (text, fact) => expectFact(text, fact));

  it.each([
    ["주말엔 GS25 편의점에서 알바해요", "user:work=알바"],
    ["주말에 물류센터 알바 뛰어요", "user:work=알바"],
    ["요즘 알바 해요", "user:work=요즘"],
    ["야간 알바 해", "user:work=야간"],
  ])("%s: nothing starting %s", (text, prefix) => expectNo(text, prefix));
});
