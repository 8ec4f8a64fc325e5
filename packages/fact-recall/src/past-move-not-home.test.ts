import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * A move at a stage of life long past says no home now (`스무 살에 서울로 올라왔어요`, `초등학교 때
 * 부산으로 이사왔어요`, `I moved to Texas when I was 10`: each gave the residence), and a time for
 * how long is no place (`… 지금까지 살고 있어요` gave the residence `지금까지`). A move with a recent
 * when still gives the home. Sentences written for these tests, none from a bench set.
 */
describe("a move long past, a time as a place", () => {
  it.each([
    ["작년에 부산으로 이사했어요", "user:residence=부산"],
    ["서울로 올라왔어요", "user:residence=서울"],
    ["I moved to Leeds last year", "user:residence=Leeds"],
    ["고향은 대구인데 스무 살에 서울로 올라왔어요", "user:hometown=대구"],
  ])("%s -> %s", (text, fact) => expectFact(text, fact));

  it.each([
    ["고향은 대구인데 스무 살에 서울로 올라왔어요", "user:residence"],
    ["대구에서 태어났는데 초등학교 때 부산으로 이사왔어요", "user:residence"],
    ["어릴 때 부산으로 이사했어요", "user:residence"],
    ["열 살 때 제주로 내려왔어요", "user:residence"],
    ["결혼하면서 수원으로 올라와서 지금까지 살고 있어요", "user:residence=지금까지"],
    ["I moved to Texas when I was 10", "user:residence"],
    ["We moved to Leeds when I was a kid", "user:residence"],
  ])("%s: nothing starting %s", (text, prefix) => expectNo(text, prefix));
});
