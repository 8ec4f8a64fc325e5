import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * A phone, a laptop or a tablet by its make with the model after it: Korean `아이폰16 프로 써`
 * (joined digits and a model word), `갤럭시 Z폴드 쓰는데`; English `I use an iPhone`, `I have a Pixel
 * 8 Pro`, `I'm on an old MacBook Air`, a relative's (`my brother uses a Kindle`). These gave nothing:
 * the Korean make rule took only a Latin model word, and English had no device rule (bench/README.md,
 * "session 65 (facts65)"). Sentences written for these tests, none from a bench set.
 */
describe("a device by its make and model", () => {
  it.each([
    ["저 폰 아이폰16 프로 써요", "user:belonging=아이폰"],
    ["요즘 갤럭시 Z폴드 쓰는데 접히는 부분이 신경 쓰여", "user:belonging=갤럭시"],
    ["맥북 에어 쓰는 중이에요", "user:belonging=맥북"],
    ["I use an iPhone for pretty much everything", "user:belonging=iPhone"],
    ["I have a Pixel 8 Pro now", "user:belonging=Pixel 8 Pro"],
    ["I'm on an old MacBook Air for all my writing", "user:belonging=MacBook Air"],
    ["my brother uses a Kindle", "user's brother:belonging=Kindle"],
  ])("%s -> %s", (text, fact) => expectFact(text, fact));

  it.each([
    // A make that qualifies another noun, a wish, a negation.
    "I have a Surface meeting at 3",
    "I want an iPhone for my birthday",
    "아이폰 안 써요",
  ])("no belonging: %s", (text) => expectNo(text, "user:belonging"));
});
