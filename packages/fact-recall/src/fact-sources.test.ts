import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { messageDigest, nextTrimMark, type TrimMark } from "@threadwise/core";
import { describe, expect, it } from "vitest";
import { extractFactsHeuristic } from "./extract-heuristic.js";
import { planFactRead, ReadEntryCache, readEntryOf } from "./fact-sources.js";
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
async function read(
  slot: FactSlot,
  messages: BaseMessage[],
  cleared?: string,
  trims = true,
  mark?: TrimMark,
  archived?: readonly string[],
): Promise<FactSlot> {
  const plan = planFactRead(messages, slot, cleared, undefined, trims, {
    ...(mark ? { mark } : {}),
    ...(archived ? { archived: new Set(archived) } : {}),
  });
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

  // factRecall's `trims: false` (memoryStack without persistTrim or the archive): nothing takes the
  // oldest messages, so one gone with every older one was removed (RemoveMessage), not trimmed.
  it("without trims, the oldest read messages gone were removed: their facts go, and a former value comes back", async () => {
    const slot = await read(emptyFactSlot(), [human("a", "My name is Kim."), human("b", "I like jazz.")]);
    const plan = planFactRead([human("b", "I like jazz."), human("c", "hello")], slot, undefined, undefined, false);
    expect(plan.facts).toBeDefined();
    expect(values(await read(slot, [human("b", "I like jazz."), human("c", "hello")], undefined, false))).toEqual(["likes=jazz"]);
    // Korean: the first of two statements of one attribute removed leaves the second; the second removed, none.
    const ko = await read(emptyFactSlot(), [human("k1", "저는 서울에 살아요."), human("k2", "부산으로 이사했어요."), human("k3", "안녕")]);
    const k1Gone = await read(ko, [human("k2", "부산으로 이사했어요."), human("k3", "안녕"), human("k4", "네")], undefined, false);
    const k1Kept = await read(ko, [human("k2", "부산으로 이사했어요."), human("k3", "안녕"), human("k4", "네")]);
    expect(values(k1Gone)).toEqual(
      values(await read(emptyFactSlot(), [human("k2", "부산으로 이사했어요."), human("k3", "안녕"), human("k4", "네")])),
    );
    expect(values(k1Kept).length).toBeGreaterThanOrEqual(values(k1Gone).length);
    // Nothing gone: the usual case, nothing read again.
    const same = planFactRead(
      [human("a", "My name is Kim."), human("b", "I like jazz."), human("c", "hi")],
      slot,
      undefined,
      undefined,
      false,
    );
    expect(same.pending.map((p) => p.cursor)).toEqual(["c"]);
  });

  // factRecall's `trims: false` with the trim mark (memoryStack): persistTrim and the archive name
  // the user messages they took in the summary slot; any other read message gone was removed.
  it("without unmarked trims, a message the trim mark names keeps its facts, an oldest one it does not name was removed", async () => {
    const en = [human("a", "My sister Hana lives in Jeju."), human("b", "My brother Minho lives in Daegu."), human("c", "It rained.")];
    const slot = await read(emptyFactSlot(), en, undefined, false);
    const after = [human("c", "It rained."), human("d", "Where do Hana and Minho live?")];
    // persistTrim (or the archive) took a and b: both keep their facts, nothing is read again.
    const both = nextTrimMark(undefined, en.slice(0, 2));
    expect(planFactRead(after, slot, undefined, undefined, false, { mark: both }).facts).toBeUndefined();
    // The archive holds them (no mark): the same; asked only for what the mark does not name.
    expect(planFactRead(after, slot, undefined, undefined, false).removed).toEqual(["a", "b"]);
    expect(planFactRead(after, slot, undefined, undefined, false, { archived: new Set(["a", "b"]) }).facts).toBeUndefined();
    expect(planFactRead(after, slot, undefined, undefined, false, { archived: new Set(["a"]) }).removed).toEqual(["b"]);
    const trimmed = (await read(slot, after, undefined, false, both)).facts.map((f) => f.value).join();
    expect(trimmed).toContain("Jeju");
    expect(trimmed).toContain("Daegu");
    // It took a only; b, then the oldest stored, was removed by the user: its fact goes.
    const one = nextTrimMark(undefined, en.slice(0, 1));
    const removed = (await read(slot, after, undefined, false, one)).facts.map((f) => f.value).join();
    expect(removed).toContain("Jeju");
    expect(removed).not.toContain("Daegu");
    // No mark: both were removed.
    expect((await read(slot, after, undefined, false)).facts.map((f) => f.value).join()).not.toMatch(/Jeju|Daegu/);
    // Korean: the mark names an older message only (taken before the last read): the oldest read one gone was removed.
    const ko = [
      human("k1", "제 여동생 하나는 제주에 살아요."),
      human("k2", "제 남동생 민호는 대구에 살아요."),
      human("k3", "비가 왔어요."),
    ];
    const koSlot = await read(emptyFactSlot(), ko.slice(1), undefined, false);
    const koAfter = [human("k3", "비가 왔어요."), human("k4", "하나랑 민호는 어디 살아요?")];
    const koRemoved = (await read(koSlot, koAfter, undefined, false, nextTrimMark(undefined, ko.slice(0, 1)))).facts.map((f) => f.value);
    expect(koRemoved.join()).not.toContain("대구");
    const koTrimmed = (await read(koSlot, koAfter, undefined, false, nextTrimMark(undefined, ko.slice(0, 2)))).facts.map((f) => f.value);
    expect(koTrimmed.join()).toContain("대구");
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

/** `n` user messages (each followed by an answer), the `k`th saying `says(k)`. */
const thread = (n: number, says: (k: number) => string): BaseMessage[] =>
  Array.from({ length: n }, (_, k) => [human(`u${k}`, says(k)), new AIMessage({ id: `a${k}`, content: "Noted." })]).flat();
const lines = (slot: FactSlot) => slot.facts.map(factLine);

describe("planFactRead: where reading again starts (R35/R37: the same with and without the message archive)", () => {
  const says = (k: number) => (k % 3 === 0 ? `I live in City${k}.` : k % 3 === 1 ? `I like food${k}.` : `hello ${k}`);

  // Regression: the newest 50 user messages were read again after any change, so a thread whose
  // older messages the archive holds read fewer, and facts read again moved to the end of the
  // list (ties rank in list order): the facts block differed with and without the archive.
  it("an edit reads again from the edited message only, whatever the thread holds before it; facts keep their place", async () => {
    const whole = thread(80, says);
    const slot = await read(emptyFactSlot(), whole);
    const edited = whole.map((m) => (m.id === "u70" ? human("u70", "I like tea.") : m));
    const plan = planFactRead(edited, slot);
    expect(plan.pending.map((p) => p.cursor)).toEqual(["u70", "u71", "u72", "u73", "u74", "u75", "u76", "u77", "u78", "u79"]);
    // The same thread as the archive leaves it: the oldest 60 user messages (with their answers) gone.
    const hot = whole.slice(120);
    const hotSlot = await read(slot, hot);
    expect(hotSlot.facts).toEqual(slot.facts);
    const after = await read(slot, edited);
    const afterHot = await read(hotSlot, edited.slice(120));
    expect(lines(afterHot)).toEqual(lines(after));
    const keys = slot.facts.map((f) => f.key).filter((key) => key !== "user|preference|food70");
    expect(after.facts.map((f) => f.key)).toEqual([...keys, "user|preference|tea"]);
  });

  it("a removal reads again from the message after the removed one", async () => {
    const whole = thread(60, says);
    const slot = await read(emptyFactSlot(), whole);
    const plan = planFactRead(
      whole.filter((m) => m.id !== "u57"),
      slot,
    );
    expect(plan.pending.map((p) => p.cursor)).toEqual(["u58", "u59"]);
    expect(values({ ...slot, facts: plan.facts ?? [] })).not.toContain("preference=food57");
  });

  it("a rewrite that brings the archive back: messages as they were are not read again, facts of one left out go", async () => {
    const whole = thread(12, (k) => (k === 2 ? "My brother works at Samsung." : says(k)));
    const archived = whole.slice(0, 8);
    // Read while the first 4 user messages were hot, then archived: the slot knows the hot part only.
    let slot = await read(emptyFactSlot(), whole.slice(0, 16));
    slot = await read(slot, whole.slice(8));
    expect(slot.read?.map((e) => e.id)).toEqual(["u4", "u5", "u6", "u7", "u8", "u9", "u10", "u11"]);
    expect(lines(slot).join("\n")).toMatch(/Samsung/);
    const cleared = archived.map(messageDigest).join("");
    // Brought back as it was: nothing is read again but the newest message (the recall).
    const back = planFactRead(whole, slot, cleared);
    expect(back.pending.map((p) => p.cursor)).toEqual(["u11"]);
    expect(planFactRead(whole, slot).unknownHead).toBe(true);
    // u2 and its answer left out: its fact goes, and reading again starts where it was.
    const without = whole.filter((m) => m.id !== "u2" && m.id !== "a2");
    const plan = planFactRead(without, slot, cleared);
    expect(plan.pending[0]?.cursor).toBe("u3");
    const after = await read(slot, without, cleared);
    expect(lines(after).join("\n")).not.toMatch(/Samsung/);
    // Without the digests, the archived messages' facts stay (the fact-recall README's limit).
    expect(lines(await read(slot, without)).join("\n")).toMatch(/Samsung/);
  });

  // Facts written before `sourceDigest` existed: a rewrite that left their archived message out
  // kept them (the fact-recall README's limit), so a fact of a message the user deleted stayed in
  // every later prompt. A missing digest is unknown: the first read while the message is stored
  // computes it, as reading the message gives it.
  it("a slot written before sourceDigest: the digest is computed while the message is stored, so a rewrite that leaves it out drops its fact", async () => {
    const whole = thread(12, (k) => (k === 2 ? "My brother works at Samsung." : says(k)));
    const archived = whole.slice(0, 8);
    const withoutDigests = (slot: FactSlot): FactSlot => ({
      ...slot,
      facts: slot.facts.map(({ sourceDigest: _d, ...fact }) => ({
        ...fact,
        ...(fact.history ? { history: fact.history.map(({ sourceDigest: _h, ...entry }) => entry) } : {}),
      })),
    });
    const legacy = withoutDigests(await read(emptyFactSlot(), whole.slice(0, 14)));
    expect(legacy.facts.some((fact) => fact.sourceDigest !== undefined)).toBe(false);
    // The next model call, u2 still stored: the facts block is the one a slot with digests gives.
    const next = await read(legacy, whole.slice(0, 16));
    const control = await read(await read(emptyFactSlot(), whole.slice(0, 14)), whole.slice(0, 16));
    expect(lines(next)).toEqual(lines(control));
    expect(next.recalled).toEqual(control.recalled);
    expect(next.facts.map((fact) => fact.sourceDigest)).toEqual(control.facts.map((fact) => fact.sourceDigest));
    // Archived, then a rewrite that brings the archive back without u2: its fact goes.
    const hot = await read(next, whole.slice(8));
    const cleared = archived.map(messageDigest).join("");
    const without = whole.filter((m) => m.id !== "u2" && m.id !== "a2");
    expect(lines(await read(hot, without, cleared)).join("\n")).not.toMatch(/Samsung/);
  });

  // The breaker's fuzz, seed 12 cases 4 and 7: `updateState` with `REMOVE_ALL_MESSAGES` keeping none
  // of an archived thread; the facts of archived messages stayed as if trimmed (a former value, a
  // whole facts block) where a thread without the archive drops every fact read since the last trim.
  it.each([
    ["en", "My brother works at Samsung.", "I live in Seoul.", "I moved to Busan.", /Samsung|Seoul/],
    ["ko", "제 이름은 민지예요.", "저는 서울에 살아요.", "부산으로 이사했어요.", /민지|서울/],
  ])(
    "%s: a rewrite that keeps none of the thread drops the archived messages' facts too, as without the archive",
    async (_l, a, b, c, gone) => {
      const whole = thread(12, (k) => (k === 1 ? a : k === 2 ? b : k === 9 ? c : `hello ${k}`));
      const archived = whole.slice(0, 8);
      let slot = await read(emptyFactSlot(), whole.slice(0, 16));
      slot = await read(slot, whole.slice(8));
      const control = await read(emptyFactSlot(), whole);
      expect(lines(slot).sort()).toEqual(lines(control).sort());
      expect(lines(slot).join("\n")).toMatch(gone);
      const next = [human("n1", "hello again")];
      const cleared = archived.map(messageDigest).join("");
      const after = await read(slot, next, cleared);
      expect(lines(after)).toEqual(lines(await read(control, next)));
      expect(lines(after).join("\n")).not.toMatch(gone);
      // A rewrite keeping only hot messages: the archived ones before them count as trimmed, as without the archive.
      const kept = [...whole.slice(20), ...next];
      expect(lines(await read(slot, kept, cleared)).sort()).toEqual(lines(await read(control, kept)).sort());
    },
  );

  // stack.archive.slow seed 304 case 21 (memoryStack, `trims: false`): a rewrite that brought the
  // archive back without its oldest messages dropped their facts, but a former value stated in one
  // stayed in the history of a fact stated last in a hot message not read again ("before: Seoul"),
  // where a thread without the archive reads that message again and gives no such former value.
  it.each([
    ["en", "I live in Seoul.", "I moved to Busan.", /Seoul/],
    ["ko", "저는 서울에 살아요.", "부산으로 이사했어요.", /서울/],
  ])(
    "%s: without unmarked trims, a rewrite that leaves out the oldest archived messages drops their former values from the facts that stay",
    async (_l, before, now, gone) => {
      const whole = thread(12, (k) => (k === 0 ? before : k === 9 ? now : `hello ${k}`));
      const archived = whole.slice(0, 8);
      let slot = await read(emptyFactSlot(), whole.slice(0, 16), undefined, false);
      // Archived (the archive holds u0 to u3: archivedAmong): their facts stay.
      const ids = archived.map((message) => message.id as string);
      slot = await read(slot, whole.slice(8), undefined, false, undefined, ids);
      const control = await read(emptyFactSlot(), whole, undefined, false);
      expect(lines(slot)).toEqual(lines(control));
      expect(lines(slot).join("\n")).toMatch(gone);
      // The rewrite keeps the thread but u0 and its answer (and empties the archive).
      const without = [...whole.slice(2), human("n1", "hello again")];
      const cleared = archived.map(messageDigest).join("");
      const after = await read(slot, without, cleared, false);
      expect(lines(after)).toEqual(lines(await read(control, without, undefined, false)));
      expect(lines(after).join("\n")).not.toMatch(gone);
      expect(after.facts.find((fact) => fact.sourceMessageId === "u9")?.previousValue).toBeUndefined();
    },
  );

  // stack.archive.slow seed 20261203 case 11 (memoryStack, `trims: false`): a rewrite that kept only
  // the hot part left out messages archived before the last read, which the slot no longer reads:
  // their facts and the former values they stated stayed ("서울 (이전: Busan)"), where a thread
  // without the archive, still reading them, drops them.
  it.each([
    ["en", "I live in Busan.", "My brother works at Samsung.", "I moved to Seoul.", /Samsung|Busan/],
    ["ko", "저는 부산에 살아요.", "제 이름은 민지예요.", "서울로 이사했어요.", /민지|부산/],
  ])(
    "%s: without unmarked trims, a rewrite that keeps only the hot part drops the facts of messages archived before the last read",
    async (_l, before, other, now, gone) => {
      const whole = thread(12, (k) => (k === 0 ? before : k === 1 ? other : k === 9 ? now : `hello ${k}`));
      const archived = whole.slice(0, 8);
      const ids = archived.map((message) => message.id as string);
      let slot = await read(emptyFactSlot(), whole.slice(0, 16), undefined, false);
      slot = await read(slot, whole.slice(8), undefined, false, undefined, ids);
      // Read once more with the archive as it is: the slot's record no longer lists u0 to u3.
      slot = await read(slot, [...whole.slice(8), human("n0", "hello there")], undefined, false);
      expect(slot.read?.map((e) => e.id)).not.toContain("u0");
      const control = await read(
        await read(emptyFactSlot(), whole, undefined, false),
        [...whole, human("n0", "hello there")],
        undefined,
        false,
      );
      expect(lines(slot)).toEqual(lines(control));
      expect(lines(slot).join("\n")).toMatch(gone);
      // The archive is not asked without a reason: the plan says what it needs.
      const hot = [...whole.slice(8), human("n0", "hello there"), human("n1", "hello again")];
      expect(planFactRead(hot, slot, undefined, undefined, false).unreadSources).toBe(true);
      expect(planFactRead(hot, slot).unreadSources).toBeUndefined();
      // The rewrite keeps the hot part (and empties the archive).
      const cleared = archived.map(messageDigest).join("");
      const after = await read(slot, hot, cleared, false);
      const controlAfter = await read(control, hot, undefined, false);
      expect(lines(after)).toEqual(lines(controlAfter));
      expect(lines(after).join("\n")).not.toMatch(gone);
      // persistTrim's own rewrite of the same messages (its mark names them): their facts stay.
      const mark = nextTrimMark(undefined, archived);
      const trimmed = await read(slot, hot, cleared, false, mark);
      expect(lines(trimmed).join("\n")).toMatch(gone);
    },
  );
});

describe("ReadEntryCache", () => {
  it("gives readEntryOf's entries after appends, trims, edits and removals", () => {
    const cache = new ReadEntryCache();
    const users = (messages: BaseMessage[]) => messages.filter((m) => m.getType() === "human");
    const base = users(thread(30, (k) => `text ${k}`));
    const steps: BaseMessage[][] = [
      base,
      [...base, human("u30", "new")],
      base.slice(5),
      base.map((m) => (m.id === "u12" ? human("u12", "edited") : m)),
      base.filter((m) => m.id !== "u3"),
      [human("x", "other"), ...base],
      [],
      base,
    ];
    for (const step of steps) expect(cache.entriesOf(step)).toEqual(step.map(readEntryOf));
  });
});
