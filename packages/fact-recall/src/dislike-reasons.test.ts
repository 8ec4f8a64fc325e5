import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * A dislike said with why or when between the thing and 싫다 (`당근은 식감 때문에 싫어요`, `가지는
 * 냄새만 맡아도 싫어`, `동생은 당근을 식감 때문에 싫어해요`: gave nothing, or `때문에` as the thing),
 * the smell or taste of what was just named is no thing of its own (`민트초코 극혐임 맛도 싫음` gave
 * `맛도`); English `can't abide`, `can't bear`, `detest`, and no dislike of an infinitive (`I hate to
 * say it` gave `to say it`). Sentences written for these tests, none from a bench set.
 */
describe("a dislike with its reason (ko)", () => {
  it.each([
    ["당근은 식감 때문에 싫어요", "user:dislikes=당근"],
    ["가지는 냄새만 맡아도 싫어", "user:dislikes=가지"],
    ["민트초코는 보기만 해도 진짜 싫음", "user:dislikes=민트초코"],
    ["저는 고수는 향 때문에 정말 싫어요", "user:dislikes=고수"],
    ["동생은 당근을 식감 때문에 싫어해요", "user's 동생:dislikes=당근"],
    ["나 민트초코 극혐임 맛도 싫음", "user:dislikes=민트초코"],
  ])("%s -> %s", (text, fact) => expectFact(text, fact));

  it.each([
    ["요즘은 비 때문에 싫어", "user:dislikes"],
    ["나 민트초코 극혐임 맛도 싫음", "user:dislikes=맛"],
    ["동생은 당근을 식감 때문에 싫어해요", "user:dislikes"],
    ["동생은 당근을 식감 때문에 싫어해요", "user's 동생:dislikes=때문에"],
  ])("%s: nothing starting %s", (text, prefix) => expectNo(text, prefix));
});

describe("a dislike (en)", () => {
  it.each([
    ["I can't abide boiled cabbage", "user:dislikes=boiled cabbage"],
    ["my husband cannot bear jazz", "user's husband:dislikes=jazz"],
    ["I detest olives", "user:dislikes=olives"],
  ])("%s -> %s", (text, fact) => expectFact(text, fact));

  it.each([
    ["I hate to say it but the trip is off", "user:dislikes"],
    ["I can't bear to throw it away", "user:dislikes"],
  ])("%s: nothing starting %s", (text, prefix) => expectNo(text, prefix));
});
