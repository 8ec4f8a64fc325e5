import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * A pet named as the speaker's inside a request or a question (`my lurcher has kidney trouble,
 * which foods …?`, `저희 말티즈가 수술했는데 산책 언제부터 해도 돼요?`): the speaker has that pet, as
 * the labelled sets count a fact said in a request (bench/README.md, "session 64 (facts64)").
 * Sentences written for these tests, none from a bench set.
 */
describe("a pet named inside a request or a question", () => {
  it.each([
    ["my whippet has a sore paw, what can I put on it?", "user:pet=whippet"],
    ["could you remind me to feed my cat at 6", "user:pet=cat"],
    ["our rabbit doesn't eat much lately, is that normal?", "user:pet=rabbit"],
    ["저희 고양이가 어제 중성화 수술을 했는데 사료 추천해 주실 수 있어요?", "user:pet=고양이"],
    ["우리 푸들 산책은 하루에 몇 번 해야 돼요?", "user:pet=푸들"],
    ["울집 강아지 미용 어디서 해요?", "user:pet=강아지"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each([
    "if I got a dog I'd call it Max",
    "my friend's dog bit me",
    "my dog walker is late again",
    "I went hiking with my dog",
    "만약 우리 강아지가 생기면 뭐라고 부를까",
    "친구네 강아지가 너무 귀여워",
    "옆집 고양이가 자꾸 와요",
  ])("guard: %s", (text) => expectNo(text, "user:pet"));
});
