/**
 * One user's commits in one process wait for each other's read-plan-write, not for each other's
 * model calls: with `llm` facts the turn's messages are read by the model outside the user's lock.
 * Before, `serialized` held the lock through the extraction, so a second thread's commit started
 * its model call only after the first one's had answered (and been written).
 */
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { InMemoryStore } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { UserItemCodec } from "./user-item-codec.js";
import { UserMemoryEngine } from "./user-memory-engine.js";
import { resolveUserMemoryOptions } from "./user-memory-options.js";
import { readUserItems } from "./user-store.js";

const fact = (attribute: string, value: string) =>
  JSON.stringify({ facts: [{ subject: "user", attribute, value, text: `${attribute}: ${value}` }] });

/**
 * A model that holds each answer until a second call is in flight, or until 500 turns of the event
 * loop have passed without one (no clock: a commit that waits for the other's answer still ends).
 */
function slowExtractor(answers: Record<string, string>) {
  let inFlight = 0;
  let arrived: () => void = () => undefined;
  const model = {
    calls: [] as string[],
    maxInFlight: 0,
    async invoke(input: unknown): Promise<AIMessage> {
      const text = String((input as BaseMessage[]).at(-1)?.content ?? "");
      model.calls.push(text);
      inFlight += 1;
      model.maxInFlight = Math.max(model.maxInFlight, inFlight);
      if (inFlight >= 2) arrived();
      else
        await new Promise<void>((resolve) => {
          let turns = 0;
          arrived = resolve;
          const tick = () => (turns++ >= 500 ? resolve() : setImmediate(tick));
          tick();
        });
      inFlight -= 1;
      return new AIMessage(answers[text] ?? '{"facts":[]}');
    },
  };
  return model;
}

describe("llm facts of one user's two threads at once", () => {
  for (const c of [
    { lang: "en", a: "Blue, like my old Volvo, which I still drive.", b: "Our cat is called Mochi." },
    { lang: "ko", a: "파란색이요, 아직도 타는 옛날 볼보처럼요.", b: "우리 고양이 이름은 모찌예요." },
  ])
    it(`${c.lang}: the two extractions overlap (the lock holds the commit only), each message read once, both stored`, async () => {
      const model = slowExtractor({ [c.a]: fact("car color", "blue"), [c.b]: fact("pet name", "Mochi") });
      const engine = new UserMemoryEngine(resolveUserMemoryOptions({ factsMode: "llm", env: {} }));
      const store = new InMemoryStore();
      const scope = { tenantId: "default", userId: "u1" };
      await Promise.all([
        engine.commit(store, scope, { threadId: "A", messages: [{ id: "a1", text: c.a }], now: "2026-01-01T10:00:00.000Z" }, { model }),
        engine.commit(store, scope, { threadId: "B", messages: [{ id: "b1", text: c.b }], now: "2026-01-01T10:01:00.000Z" }, { model }),
      ]);
      expect(model.maxInFlight).toBe(2);
      expect(model.calls.sort()).toEqual([c.a, c.b].sort());
      const facts = (await readUserItems(store, scope, new UserItemCodec(), 100)).filter((item) => item.kind === "fact");
      expect(facts.map((item) => [item.fact?.attribute, item.fact?.value, item.fact?.origin]).sort()).toEqual([
        ["car color", "blue", "llm"],
        ["pet name", "Mochi", "llm"],
      ]);
    });
});
