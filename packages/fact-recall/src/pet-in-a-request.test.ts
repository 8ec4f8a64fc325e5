import { describe, expect, it } from "vitest";
import { expectFact, expectNo, pairs } from "./test-support.js";

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

  // A pet that died or is gone is no pet the speaker has (an ended one, when a rule reads it so).
  it.each([
    "my cat is gone now, should I get another one?",
    "my dog is no longer with us, how do I tell my kids?",
    "our cat was run over last week, can you help me write a note?",
    "my old dog has passed away, any advice?",
    "우리 강아지가 떠났어요. 어떻게 견뎌요?",
    "우리 강아지는 이제 없어요. 어떻게 견뎌요?",
    "저희 고양이가 무지개다리를 건넜는데 사진 정리 좀 도와줄 수 있어요?",
  ])("guard, gone: %s", (text) => {
    const held = pairs(text).filter((p) => p.startsWith("user:pet") && !p.endsWith(" (ended)"));
    expect(held, text).toEqual([]);
  });

  // Not gone: a trip with the pet, or a pet that is ill (a request about its care).
  it.each([
    ["우리 강아지랑 여행 떠났는데 숙소 추천해 줄 수 있어요?", "user:pet=강아지"],
    ["my dog is not eating, is that bad?", "user:pet=dog"],
  ])("%s", (text, fact) => expectFact(text, fact));
});
