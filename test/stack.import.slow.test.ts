/**
 * A thread imported by one `updateState` of 5,000 messages (user turns, plain answers, tool loops,
 * parallel calls), then turns, a summary, recall of a fact stated in the import's first message,
 * and a fork from the import's checkpoint, against plain `createAgent` on a `MemorySaver` (breaker61's
 * left item: the slow fuzz imports 5,000 against a fresh process, never against plain).
 * `memoryStack` (window 4, summary at 6, recall on), English and Korean, archive off and on; every
 * request the stack sent passes report-agent's `expectAccepted`. Archive on, the fork would bring
 * archived messages back: refused (`archived-fork`, R37), nothing stored, and the next turn goes on
 * from the head. Slow: plain sends all 5,000 messages on each call (~3 minutes a case when loaded).
 */
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { messageText } from "@threadwise/core";
import { ThreadwiseArchivedMessageError } from "@threadwise/memory";
import { describe, expect, it } from "vitest";
import {
  expectAccepted,
  expectSameThread,
  GRAPH_OPS_CASES,
  GRAPH_OPS_TEXT,
  graphOpsAgents,
  graphOpsLabel,
  graphOpsPair,
  requests,
  storedMessages,
  threadShape,
  warmGraphOps,
  wholeThread,
} from "./support/report-agent.js";

const both = graphOpsPair;

const FACT = {
  en: { fact: "My locker code is 4417, please remember it.", ask: "What is my locker code?" },
  ko: { fact: "제 사물함 비밀번호는 4417이에요, 기억해 주세요.", ask: "제 사물함 비밀번호가 뭐였죠?" },
} as const;

/** `size` messages as a client imports them: user turns, plain answers, tool loops, parallel calls; `fact` first. */
function imported(lang: "en" | "ko", size: number): BaseMessage[] {
  const t = GRAPH_OPS_TEXT[lang];
  const out: BaseMessage[] = [new HumanMessage({ id: "imp-0", content: FACT[lang].fact }), new AIMessage({ id: "imp-1", content: "ok" })];
  for (let k = 0; out.length < size; k += 1) {
    const id = (x: string) => `imp-${k}-${x}`;
    out.push(new HumanMessage({ id: id("u"), content: t.turn(100 + k) }));
    const calls = k % 3 === 0 ? 0 : k % 3; // a plain answer, one call, two parallel calls
    if (calls > 0) {
      out.push(
        new AIMessage({
          id: id("a"),
          content: "",
          tool_calls: Array.from({ length: calls }, (_, i) => ({
            id: id(`c${i}`),
            name: "lookup",
            args: { n: i },
            type: "tool_call" as const,
          })),
        }),
      );
      for (let i = 0; i < calls; i += 1)
        out.push(new ToolMessage({ id: id(`r${i}`), content: `result ${i}`, tool_call_id: id(`c${i}`), name: "lookup" }));
    }
    out.push(new AIMessage({ id: id("f"), content: `ok: ${t.turn(100 + k)}` }));
  }
  return out;
}

describe.each(GRAPH_OPS_CASES)("a 5,000-message import against plain (%o)", (c) => {
  const t = GRAPH_OPS_TEXT[c.lang];

  it(`a 5,000-message import by one updateState (tool loops, parallel calls), turns, a summary, recall of an early fact, a fork from the import (${graphOpsLabel(c)})`, async () => {
    const a = graphOpsAgents({ ...c, stack: { recallMaxTokens: 400 } });
    const cfg = { configurable: { thread_id: `import-5k-${c.lang}-${c.archive}` } };
    const messages = imported(c.lang, 5000);
    const forks: Record<string, string> = {};
    const beforeFork: Record<string, unknown[]> = {};
    for (const [name, target] of both(a)) {
      const written = await target.updateState(cfg, { messages });
      const importedAt = String(written.configurable?.checkpoint_id);
      await warmGraphOps(target, c.lang, cfg, 3, 1);
      await target.invoke({ messages: [new HumanMessage(`${t.turn(4)}\nPARALLEL 2`)] }, cfg);
      await target.invoke({ messages: [new HumanMessage(FACT[c.lang].ask)] }, cfg);
      beforeFork[name] = threadShape(
        name === "agent"
          ? await wholeThread(a, cfg.configurable.thread_id)
          : await storedMessages(target as never, cfg.configurable.thread_id),
      );
      forks[name] = await target
        .invoke({ messages: [new HumanMessage(t.fixed)] }, { configurable: { ...cfg.configurable, checkpoint_id: importedAt } })
        .then(
          () => "ok",
          (e: unknown) => (ThreadwiseArchivedMessageError.isInstance(e) ? `archived: ${(e as { reason?: string }).reason}` : String(e)),
        );
      await target.invoke({ messages: [new HumanMessage(t.after)] }, cfg);
    }
    expect(forks.plain).toBe("ok");
    expect(forks.agent).toBe(c.archive ? "archived: archived-fork" : "ok");
    const askedWith = requests(a.m).find((r) => messageText(r.at(-1) as BaseMessage).includes(FACT[c.lang].ask)) as BaseMessage[];
    expect(askedWith).toBeDefined();
    // Recall brings the import's first message back to the question; the summary was placed.
    expect(askedWith.some((m) => messageText(m).includes("4417"))).toBe(true);
    expect(requests(a.m).some((r) => r.some((m) => messageText(m).includes("요약 summary")))).toBe(true);
    expect(Math.max(...requests(a.m).map((r) => r.length))).toBeLessThan(60);
    const head = (await a.agent.getState(cfg)).values.messages ?? [];
    expect(messageText(head.at(-1) as BaseMessage)).toBe(`ok: ${t.after}`);
    const archived = (await wholeThread(a, cfg.configurable.thread_id)).length - head.length;
    expect(archived > 4000).toBe(c.archive);
    expect(beforeFork.agent).toEqual(beforeFork.plain);
    if (c.archive) {
      // The fork was refused and stored nothing: the head goes on from the main line (plain's went on from its fork).
      expect(threadShape(await wholeThread(a, cfg.configurable.thread_id))).toEqual([
        ...(beforeFork.agent ?? []),
        ...threadShape([new HumanMessage(t.after), new AIMessage(`ok: ${t.after}`)]),
      ]);
    } else await expectSameThread(a, cfg.configurable.thread_id);
    expectAccepted(a.m);
  }, 900_000);
});
