import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * A condition had (`허리 디스크 있어서 …`, `목 디스크가 있어요`) or given as the reason of what follows
 * (`허리 디스크 때문에 오래 못 서 있어요`, `손목터널증후군 때문에 병원 다녀요`): gave nothing (a disc
 * was read only with a stay in hospital or an operation, an illness by its suffix only with 있다 and
 * its like). One had by people the speaker asks about is not the speaker's (`비염 있는 사람한테 좋은
 * 차 알려줘` gave the user `비염`). English: a disc, sciatica or a syndrome had (`I have a slipped
 * disc`, `I've got a herniated disc`: nothing, or an event).
 * Sentences written for these tests, none from a bench set.
 */
describe("a condition had or given as a reason", () => {
  it.each([
    ["저 허리 디스크 있어서 오래 못 앉아 있어요", "user:health=허리 디스크"],
    ["허리 디스크 때문에 오래 못 서 있어요", "user:health=허리 디스크"],
    ["허리디스크가 있어요", "user:health=허리디스크"],
    ["손목터널증후군 때문에 병원 다녀요", "user:health=손목터널증후군"],
    ["엄마가 허리 디스크 있으셔", "user's 엄마:health=허리 디스크"],
    ["I have a slipped disc", "user:health=a slipped disc"],
    ["I've got a herniated disc so I can't lift", "user:health=a herniated disc"],
    ["I have restless legs syndrome", "user:health=restless legs syndrome"],
    ["my wife has sciatica", "user's wife:health=sciatica"],
  ])("%s -> %s", (text, fact) => expectFact(text, fact));

  it.each([
    ["비염 있는 사람한테 좋은 차 알려줘", "user:health"],
    ["디스크 있는 사람한테 좋은 운동 알려줘", "user:health"],
    ["자격증 때문에 바빠요", "user:health"],
    ["I have a syndrome", "user:health"],
  ])("%s: nothing starting %s", (text, prefix) => expectNo(text, prefix));
});
