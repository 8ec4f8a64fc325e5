import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { extractFactsHeuristic } from "./extract-heuristic.js";
import { planFactRead } from "./fact-sources.js";
import { emptyFactSlot, type FactSlot, factLine, mergeFactSlot } from "./fact-store.js";
import { ingestUserMessages } from "./ingest.js";

const human = (id: string, content: string) => new HumanMessage({ id, content });
const settings = {
  extract: async (text: string) => ({ facts: extractFactsHeuristic(text), origin: "heuristic" as const }),
  maxFacts: 200,
  maxItems: 3,
  minScore: 0,
};
/** One model call of factRecall on `messages`: the slot after it. */
async function read(slot: FactSlot, messages: BaseMessage[]): Promise<FactSlot> {
  const plan = planFactRead(messages, slot);
  if (plan.pending.length === 0 && plan.facts === undefined) return slot;
  const { update } = await ingestUserMessages(slot, plan.pending, settings, plan);
  return mergeFactSlot(slot, update);
}
const values = (slot: FactSlot) => slot.facts.map((f) => `${f.attribute}=${f.value}`).sort();

describe("planFactRead (R37)", () => {
  it("usual case: only the messages after the cursor are read; the read record follows the stored thread", async () => {
    const m = [human("a", "I live in Seoul."), human("b", "I like jazz.")];
    let slot = await read(emptyFactSlot(), m.slice(0, 1));
    expect(slot.read?.map((e) => e.id)).toEqual(["a"]);
    const plan = planFactRead(m, slot);
    expect(plan.facts).toBeUndefined();
    expect(plan.pending.map((p) => p.cursor)).toEqual(["b"]);
    slot = await read(slot, m);
    expect(slot.read?.map((e) => e.id)).toEqual(["a", "b"]);
    expect(values(slot)).toEqual(["likes=jazz", "residence=Seoul"]);
  });

  it("a trim (oldest messages gone, newer read ones stored) keeps the facts and reads nothing again", async () => {
    const slot = await read(emptyFactSlot(), [human("a", "My name is Kim."), human("b", "I like jazz.")]);
    const plan = planFactRead([human("b", "I like jazz."), human("c", "hello")], slot);
    expect(plan.facts).toBeUndefined();
    expect(plan.pending.map((p) => p.cursor)).toEqual(["c"]);
    expect(values(await read(slot, [human("b", "I like jazz."), human("c", "hello")]))).toEqual(["likes=jazz", "name=Kim"]);
  });

  it("a trim, then an edit of the only read message left: the trimmed message's facts stay", async () => {
    const slot = await read(emptyFactSlot(), [human("a", "My name is Kim."), human("b", "hello")]);
    const after = await read(slot, [human("b", "I live in Jeju."), human("c", "thanks")]);
    expect(values(after)).toEqual(["name=Kim", "residence=Jeju"]);
  });

  // The archive lane of stack.archive.slow case 21: the message that stated the former value left
  // through a trim (or the archive), then an edit makes the newer ones be read again. The former
  // value must survive, as it does when the message is still stored and read again (R37/R35).
  it.each([
    ["en", ["I live in Seoul.", "I moved to Busan.", "hello"], "I like jazz."],
    ["ko", ["제 이름은 Mina예요.", "제 이름은 민지예요.", "안녕하세요"], "저는 재즈를 좋아해요."],
  ])("%s: a trim of the message that stated a former value, then an edit: the former value stays", async (_l, texts, edited) => {
    const [a, b, c] = texts as [string, string, string];
    const lines = (slot: FactSlot) => slot.facts.map(factLine).sort();
    const slot = await read(emptyFactSlot(), [human("a", a), human("b", b), human("c", c)]);
    const control = await read(slot, [human("a", a), human("b", b), human("c", edited), human("d", "ok")]);
    const trimmed = await read(slot, [human("b", b), human("c", edited), human("d", "ok")]);
    expect(lines(control).some((line) => /\((before|이전): (Seoul|Mina)\)/.test(line))).toBe(true);
    expect(lines(trimmed)).toEqual(lines(control));
  });

  it("a rewrite (no read message left) drops the facts read since the last write and reads the new history", async () => {
    const slot = await read(emptyFactSlot(), [human("a", "I live in Busan."), human("b", "I like jazz.")]);
    const after = await read(slot, [human("x", "I live in Jeju."), human("y", "Where do I live?")]);
    expect(values(after)).toEqual(["residence=Jeju"]);
    expect(after.read?.map((e) => e.id)).toEqual(["x", "y"]);
  });

  it("a slot written before the read record: a missing cursor reads the newest messages again, not only the last", async () => {
    const legacy: FactSlot = { ...emptyFactSlot(), cursor: "gone", turn: 3 };
    const plan = planFactRead([human("a", "I live in Jeju."), human("b", "I like jazz.")], legacy);
    expect(plan.pending.map((p) => p.cursor)).toEqual(["a", "b"]);
  });
});
