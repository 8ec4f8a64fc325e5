import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * A liking or dislike of a kind of thing keeps the adjective that names the kind: `매운 음식을
 * 싫어해요` is a dislike of spicy food, not of food (the value was `음식`, and `매운 음식을 좋아해요`
 * then `단 음식은 안 좋아해요` shared one key, so the second replaced the first), as English `I hate
 * spicy food` keeps `spicy food`. Sentences written for this test.
 */
describe("a kind of thing liked or disliked keeps its adjective", () => {
  it.each([
    ["매운 음식을 싫어해요.", "user:dislikes=매운 음식"],
    ["매운 음식을 좋아해요.", "user:likes=매운 음식"],
    ["단 음식은 별로 안 좋아해요.", "user:dislikes=단 음식"],
    ["추운 날씨가 싫어요.", "user:dislikes=추운 날씨"],
    ["I hate spicy food.", "user:dislikes=spicy food"],
    ["I don't like cold weather.", "user:dislikes=cold weather"],
  ])("%s -> %s", (text, fact) => expectFact(text, fact));

  // A topic, the speaker or a time before the noun is no adjective of it.
  it.each([
    ["저는 음식을 가리지 않아요. 난 음식을 싫어해.", "user:dislikes=음식"],
    ["요즘엔 음식을 싫어해요.", "user:dislikes=음식"],
    ["동생은 음식을 싫어해요.", "user's 동생:dislikes=음식"],
  ])("guard: %s -> %s", (text, fact) => expectFact(text, fact));

  it("guard: no adjective invented", () => expectNo("음식을 싫어해요.", "user:dislikes=음식 "));
});
