/**
 * Facts with and without the message archive (R35/R37): one long thread (past the 50 user messages
 * fact-recall re-reads after an edit), driven the same way through `memoryStack` with
 * `archive: true` and without, with edits by id, `RemoveMessage` and rewrites
 * (`REMOVE_ALL_MESSAGES`, then the thread as read back, edited), in English and Korean. After
 * every step the facts block each model call received, and every stored fact as the model would
 * read it (in slot order, the tie-break of equal scores), are the same in both runs.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { FACTS_STATE_KEY, type FactSlot, renderFacts } from "@threadwise/fact-recall";
import { memoryStack, type ThreadwiseSaver } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";

const config = { configurable: { thread_id: "long" } };
const LABEL = "Known facts about the user";

/** Statements cycled through the thread: values that replace, restate, end and return, in both languages. */
const STATEMENTS = [
  "I live in Seoul.",
  "My name is Mina.",
  "I work at Naver.",
  "저는 커피를 좋아해요.",
  "I moved to Busan.",
  "제 이름은 민지예요.",
  "I have a dog named Max.",
  "저는 카카오에서 일해요.",
  "I live in Seoul.",
  "I don't like coffee anymore.",
  "부산으로 이사했어요.",
  "My sister lives in Daegu.",
  "I'm allergic to peanuts.",
  "I work at Naver.",
  "이제 서울에 살지 않아요.",
  "고양이를 키워요.",
  "저는 간호사예요.",
];

/** Statements made once (a removal takes their fact away for good): by turn number. */
const ONCE: Readonly<Record<number, string>> = {
  5: "I play the violin.",
  25: "저는 수영을 좋아해요.",
  27: "My brother works at Samsung.",
  45: "제가 제일 좋아하는 음식은 김치예요.",
};
const statement = (k: number) => ONCE[k] ?? (STATEMENTS[k % STATEMENTS.length] as string);

function stackAgent(archive: boolean) {
  const stack = memoryStack({
    backend: "in_memory",
    archive,
    windowSize: 4,
    summarize: false,
    recallMaxTokens: false,
    factsMode: "heuristic",
    factRecallMaxItems: 3,
    logger: false,
    env: {},
  });
  const blocks: string[] = [];
  const model = scriptedModel((messages, call) => {
    const system = messages
      .filter((m) => m.getType() === "system")
      .map(messageText)
      .join("\n");
    const at = system.indexOf(LABEL);
    blocks.push(at === -1 ? "" : system.slice(at));
    return new AIMessage({ id: `a-${call}`, content: "Noted." });
  });
  const agent = createAgent({ model, ...stack });
  const saver = stack.checkpointer as ThreadwiseSaver;
  return { agent, saver, blocks };
}
type Run = ReturnType<typeof stackAgent>;

async function slotOf(run: Run): Promise<FactSlot> {
  return (await run.agent.graph.getState(config)).values[FACTS_STATE_KEY] as FactSlot;
}
async function hotOf(run: Run): Promise<BaseMessage[]> {
  return (await run.agent.graph.getState(config)).values.messages as BaseMessage[];
}

describe("facts with and without the message archive (R35/R37)", () => {
  it("a long thread with edits by id, removals and rewrites: same facts block at every call", async () => {
    const runs = [stackAgent(false), stackAgent(true)] as const;
    const both = async (step: (run: Run) => Promise<unknown>) => {
      for (const run of runs) await step(run);
    };
    const turn = (id: string, content: string) =>
      both((run) => run.agent.invoke({ messages: [new HumanMessage({ id, content })] }, config));
    const compare = async (where: string) => {
      const [plain, archived] = runs;
      expect(archived.blocks, where).toEqual(plain.blocks);
      expect(renderFacts((await slotOf(archived)).facts), where).toBe(renderFacts((await slotOf(plain)).facts));
    };
    const TURNS = 64;
    for (let k = 0; k < TURNS; k += 1) await turn(`u${k}`, statement(k));
    await compare("after the turns");
    expect((await runs[1].saver.archivedMessages("long")).length).toBeGreaterThan(60);

    // Edit in place the oldest hot user message (the oldest the archive run may edit).
    const oldestHot = (await hotOf(runs[1])).find((m) => m.getType() === "human") as BaseMessage;
    await both((run) =>
      run.agent.graph.updateState(config, { messages: [new HumanMessage({ id: oldestHot.id, content: "I live in Incheon." })] }),
    );
    await turn("q1", "Where do I live now?");
    await compare("after an edit in place");

    // Remove a hot user message.
    const hot = (await hotOf(runs[1])).filter((m) => m.getType() === "human");
    await both((run) => run.agent.graph.updateState(config, { messages: [new RemoveMessage({ id: hot[1]?.id as string })] }));
    await turn("q2", "어디 살아요? 직업이 뭐예요?");
    await compare("after a removal");

    // A rewrite: the whole thread as read back, one archived message edited.
    const whole = await runs[1].saver.readThread(config);
    const rewritten = whole.map((m) => (m.id === "u20" ? new HumanMessage({ id: "u20", content: "저는 대전에 살아요." }) : m));
    await both((run) =>
      run.agent.invoke(
        {
          messages: [
            new RemoveMessage({ id: REMOVE_ALL_MESSAGES }),
            ...rewritten,
            new HumanMessage({ id: "q3", content: "Where do I live?" }),
          ],
        },
        config,
      ),
    );
    await compare("after a rewrite");

    for (let k = TURNS; k < TURNS + 20; k += 1) await turn(`u${k}`, statement(k));
    await compare("after more turns");

    // A rewrite that leaves out archived user messages (the way to delete them): their facts go.
    const again = await runs[1].saver.readThread(config);
    expect((await runs[1].saver.archivedMessages("long")).map((m) => m.id)).toContain("u25");
    const kept = again.filter((m) => m.id !== "u25" && m.id !== "u27");
    await both((run) =>
      run.agent.invoke(
        {
          messages: [
            new RemoveMessage({ id: REMOVE_ALL_MESSAGES }),
            ...kept,
            new HumanMessage({ id: "q4", content: "수영 좋아해요? What does my brother do?" }),
          ],
        },
        config,
      ),
    );
    await compare("after a rewrite that removes archived messages");
    expect(renderFacts((await slotOf(runs[1])).facts)).not.toMatch(/수영|Samsung/);
  }, 120_000);
});

const dir = mkdtempSync(join(tmpdir(), "threadwise-facts-trim-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The slow archive fuzz with persistTrim (`STACK_ARCHIVE_SLOW_SEED=12 STACK_ARCHIVE_CASE=7`, and
 * seed 15 case 7): persistTrim's rewrite empties the archive, and the archive keeps the digests of
 * what it held (the marker a user's rewrite leaves too). Turns later, every read user message was
 * removed (`RemoveMessage`): fact-recall read that old marker as a rewrite keeping none of the
 * thread and dropped the facts of the messages persistTrim had deleted (`User is allergic to
 * peanuts`), which a run without the archive keeps (R5, R37: trimmed messages keep their facts).
 */
describe.each(["in_memory", "sqlite"] as const)("facts with the archive and persistTrim (%s)", (backend) => {
  function trimmingAgent(archive: boolean) {
    const stack = memoryStack({
      backend,
      ...(backend === "sqlite" ? { sqlitePath: join(dir, `${archive}.sqlite`) } : {}),
      archive,
      windowSize: 2,
      summarize: false,
      recallMaxTokens: false,
      factsMode: "heuristic",
      persistTrimKeepGroups: 3,
      logger: false,
      env: {},
    });
    const agent = createAgent({ model: scriptedModel((_m, call) => new AIMessage({ id: `a-${call}`, content: "Noted." })), ...stack });
    return { agent, saver: stack.checkpointer as ThreadwiseSaver };
  }
  const statements = [
    "I'm allergic to peanuts.",
    "I live in Seoul.",
    "제 이름은 민지예요.",
    "I work at Naver.",
    ...["hello", "fine", "ok", "sure", "thanks", "bye"],
  ];

  it("a removal of every read message after persistTrim emptied the archive keeps the trimmed messages' facts, as without the archive", async () => {
    const runs = [trimmingAgent(false), trimmingAgent(true)] as const;
    const facts = async (run: (typeof runs)[number]) =>
      renderFacts(((await run.agent.graph.getState(config)).values[FACTS_STATE_KEY] as FactSlot).facts);
    const history = statements.flatMap((content, k) => [
      new HumanMessage({ id: `s${k}`, content }),
      new AIMessage({ id: `sa${k}`, content: "Noted." }),
    ]);
    for (const run of runs) {
      // One turn over a long imported history: the archive takes its older part, then persistTrim
      // deletes it (and more), emptying the archive: its marker keeps their digests.
      await run.agent.invoke({ messages: [...history, new HumanMessage({ id: "u0", content: "I have a dog." })] }, config);
      for (let k = 1; k <= 3; k += 1)
        await run.agent.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: `I like tea number ${k}.` })] }, config);
    }
    const [plain, archived] = runs;
    expect(await archived.saver.archiveClearedDigests("long")).toBeDefined();
    expect(await facts(archived)).toBe(await facts(plain));
    expect(await facts(plain)).toMatch(/peanuts/);
    // Every stored user message removed by id, then a new turn: no message read before is stored.
    for (const run of runs) {
      const stored = (await run.agent.graph.getState(config)).values.messages as BaseMessage[];
      const users = stored.filter((m) => m.getType() === "human").map((m) => new RemoveMessage({ id: m.id as string }));
      await run.agent.graph.updateState(config, { messages: users });
      await run.agent.invoke({ messages: [new HumanMessage({ id: "u9", content: "Am I allergic to peanuts?" })] }, config);
    }
    expect(await facts(archived)).toBe(await facts(plain));
    expect(await facts(archived)).toMatch(/peanuts[\s\S]*Seoul[\s\S]*민지[\s\S]*Naver/);
    // The marker is an old rewrite's: no news since the checkpoint the slot last read from.
    const slot = (await archived.agent.graph.getState(config)).values[FACTS_STATE_KEY] as FactSlot;
    expect(slot.checkpointId).toEqual(expect.any(String));
    expect(await archived.saver.archiveClearedDigests("long", slot.checkpointId)).toBeUndefined();
  });
});
