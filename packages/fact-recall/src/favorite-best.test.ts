import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * The one liked best is the favourite, not one liking among others: `스플렌더 제일 좋아해요`, `크림빵을
 * 가장 좋아해서`, `과일은 복숭아가 젤 좋아요` (the topic names the kind), English `I like Splendor
 * best`, `Catan is my favorite`; a two-word favourite after `제일 좋아하는 X는` (`콜롬비아 수프리모예요`).
 * These gave `likes` or nothing (bench/README.md, "session 65 (facts65)"). Sentences written for
 * these tests, none from a bench set.
 */
describe("the one liked best", () => {
  it.each([
    ["스플렌더 제일 좋아해요. 거의 매주 해요", "user:favorite=스플렌더"],
    ["저는 크림빵을 가장 좋아해서 빵집 가면 꼭 사요", "user:favorite=크림빵"],
    ["과일은 복숭아가 젤 좋아요", "user:favorite=과일: 복숭아"],
    ["차는 보이차를 제일 좋아하고요", "user:favorite=차: 보이차"],
    ["순대 제일 좋아해", "user:favorite=순대"],
    ["제일 좋아하는 원두는 콜롬비아 수프리모예요", "user:favorite=원두: 콜롬비아 수프리모"],
    ["제일 좋아하는 배우는 역시 송강호예요", "user:favorite=배우: 송강호"],
    ["I like Splendor best, we play it every week", "user:favorite=Splendor"],
    ["I love Thai food the most", "user:favorite=Thai food"],
    ["Catan is my favorite, I have played it a hundred times", "user:favorite=Catan"],
    ["my nephew likes Lego best", "user's nephew:favorite=Lego"],
  ])("%s -> %s", (text, fact) => expectFact(text, fact));

  it.each([
    // A pronoun or a time is no favourite.
    "그게 제일 좋아요",
    "지금은 제일 좋아해요",
    "That is my favorite",
    "My Sister is my favorite",
    "I like it the most",
  ])("no favourite: %s", (text) => expectNo(text, "user:favorite"));
});
