import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * A pet said by its breed: English breeds said alone (`a whippet`, `a lurcher called Bramble`) and
 * the breed said of a pet just named (`our dog Biscuit is a lab mix`); Korean `비숑 키우는데 …`,
 * `코숏이 있어요` and the breed said of a pet named by kind and name (`우리 고양이 나비는
 * 러시안블루예요`) (bench/README.md, "session 63 (facts63)"). Sentences written for these tests,
 * none from a bench set.
 */
describe("a pet by its breed", () => {
  it.each([
    ["I have a whippet called Pip", "user:pet=whippet named Pip"],
    ["we've got a cockapoo, he's two", "user:pet=cockapoo"],
    ["my cat Luna is a ragdoll", "user:pet=ragdoll named Luna"],
    ["our dog Rex is a 6 year old collie mix", "user:pet=collie mix named Rex"],
    ["시츄 한 마리 키우는데 올해 다섯 살이에요", "user:pet=시츄"],
    ["유기견 센터에서 데려온 진돗개가 있어요", "user:pet=진돗개"],
    ["우리 고양이 나비는 러시안블루예요", "user:pet=러시안블루 나비"],
    ["저희 집 강아지 초코는 올해 세 살 된 푸들이에요", "user:pet=푸들 초코"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each([
    // Another animal the pet is with, and someone else's pet, are not the pet's breed.
    ["my dog Pip is friends with a whippet", "user:pet=whippet"],
    ["my dog Pip is scared of a poodle", "user:pet=poodle"],
    ["친구 강아지 초코는 푸들이에요", "user:pet"],
    ["우리 강아지 보리는 푸들이랑 친해요", "user:pet=푸들"],
  ])("guard: %s", (text, prefix) => expectNo(text, prefix));
});
