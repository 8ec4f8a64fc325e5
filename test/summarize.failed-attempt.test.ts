/**
 * After a failed summarizer attempt the view is decided by the stored thread (the summary slot's
 * `lastAttempt`), not by the process that saw the failure. A summarizer down for several turns,
 * with tool calls in the thread, with `background: true` and `false`, over a MemorySaver and a
 * SqliteSaver: on every turn a fresh process (a new stack over the same saver, from the same
 * checkpoint) sends the request the running process sends, and every request holds every message
 * no summary covers (was: the second failure in a row, and the call after a failed background job,
 * cut the view to the window, those messages neither summarized nor sent). Then the summarizer
 * answers again: the summary covers them, the record of the failure is gone, and both processes
 * still agree. Requests go through the strict provider validator (no orphan results). English
 * and Korean threads.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { type BaseCheckpointSaver, MemorySaver } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { messageText, readSummarySlot } from "@threadwise/core";
import { strictModel } from "@threadwise/core/testing";
import { summarize } from "@threadwise/summarize";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { lastRequest, lookup, requestShape } from "./support/break-agent.js";

const dir = mkdtempSync(join(tmpdir(), "tw-failed-attempt-"));
const opened: SqliteSaver[] = [];
afterAll(() => {
  for (const saver of opened) saver.db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Storage a process opens its saver on: the MemorySaver itself, or a new SqliteSaver on one file. */
function storage(kind: "MemorySaver" | "SqliteSaver", name: string): () => BaseCheckpointSaver {
  if (kind === "MemorySaver") {
    const shared = new MemorySaver();
    return () => shared;
  }
  const file = join(dir, `${name}.db`);
  return () => {
    const saver = SqliteSaver.fromConnString(file);
    opened.push(saver);
    return saver;
  };
}

/** A summarizer that fails while `down`, else answers with a short summary of what it was given. */
function switchable() {
  const state = { down: true, calls: 0 };
  return {
    state,
    invoke: async (messages: BaseMessage[]) => {
      state.calls += 1;
      if (state.down) throw new Error("summarizer down");
      return new AIMessage(`SUMMARY: ${messageText(messages.at(-1) as BaseMessage).slice(-40)}`);
    },
  };
}

const texts = {
  English: (k: number) => (k % 3 === 0 ? `TOOLS lookup for trip ${k}` : `message ${k}: the Busan trip and the hotel near Haeundae`),
  Korean: (k: number) => (k % 3 === 0 ? `TOOLS lookup 여행 ${k}` : `메시지 ${k}: 부산 여행과 해운대 근처 호텔`),
} as const;

/**
 * The agent's model, strict (every request checked against the providers' rules, refusals
 * recorded): `TOOLS lookup ... <k>` calls lookup with a call id of that turn (the same in every
 * process), a tool result is answered with its text, anything else with `ok: <text>`.
 */
function agentModel() {
  return strictModel({
    onViolation: "record",
    answer: (messages) => {
      const last = messages.at(-1) as BaseMessage;
      const text = messageText(last);
      if (last.getType() === "tool") return `done: ${text.slice(0, 40)}`;
      if (last.getType() === "human" && text.startsWith("TOOLS lookup")) {
        const k = text.split(" ").at(-1) as string;
        return new AIMessage({ content: "", tool_calls: [{ id: `call_${k}`, name: "lookup", args: { q: k }, type: "tool_call" }] });
      }
      return `ok: ${text.slice(0, 40)}`;
    },
  });
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

for (const kind of ["MemorySaver", "SqliteSaver"] as const)
  for (const background of [false, true])
    for (const [language, text] of Object.entries(texts))
      describe(`${kind}, background: ${background}, ${language}`, () => {
        it("a fresh process sends what the running one does after failed attempts; every request holds every message no summary covers; a later success covers them", async () => {
          const summarizer = switchable();
          const open = storage(kind, `${background}-${language}`);
          const build = () => {
            const model = agentModel();
            const agent = createAgent({
              model,
              tools: [lookup],
              checkpointer: open(),
              middleware: [summarize({ model: summarizer, windowSize: 4, threshold: 8, background, logger: false })],
            });
            return { agent, model };
          };
          const running = build();
          const thread = `failed-${kind}-${background}-${language}`;
          const cfg = (checkpointId?: string) => ({
            configurable: { thread_id: thread, ...(checkpointId ? { checkpoint_id: checkpointId } : {}) },
          });
          const stored = async () =>
            ((await running.agent.graph.getState(cfg())).values as { messages: BaseMessage[] }).messages.filter(
              (m) => m.getType() !== "system",
            );
          const slot = async () => readSummarySlot((await running.agent.graph.getState(cfg())).values).summary;
          const models = [running.model];
          /** Turn `k` from the thread's head by a fresh process, then by the running one: both requests. */
          const oracleTurn = async (k: number) => {
            const at = (await running.agent.graph.getState(cfg())).config.configurable?.checkpoint_id as string | undefined;
            const fresh = build();
            models.push(fresh.model);
            await fresh.agent.invoke({ messages: [new HumanMessage(text(k))] }, cfg(at));
            await running.agent.invoke({ messages: [new HumanMessage(text(k))] }, cfg(at));
            await tick();
            return { mine: lastRequest(running.model), fresh: lastRequest(fresh.model) };
          };
          const humans = (request: BaseMessage[]) => request.filter((m) => m.getType() === "human").length;

          // The summarizer is down: due from turn 4 (background) or 5, failing on every attempt.
          for (let k = 1; k <= 3; k += 1) {
            await running.agent.invoke({ messages: [new HumanMessage(text(k))] }, cfg());
            await tick();
          }
          for (let k = 4; k <= 9; k += 1) {
            const { mine, fresh } = await oracleTurn(k);
            expect(requestShape(fresh), `turn ${k}`).toEqual(requestShape(mine));
            // No summary, so the request is the whole thread so far: every user message (was: from
            // the second failure on, or the call after a failed job, only the window).
            expect(humans(mine), `turn ${k}`).toBe(k);
            expect(JSON.stringify(mine)).not.toContain("Previous conversation summary");
          }
          expect(summarizer.state.calls).toBeGreaterThanOrEqual(background ? 5 : 6);
          expect((await slot())?.lastAttempt).toMatchObject({ failed: !background });

          // The summarizer answers again: a summary covers the messages the failures kept in the view.
          summarizer.state.down = false;
          let k = 10;
          const first = await oracleTurn(k++);
          expect(requestShape(first.fresh)).toEqual(requestShape(first.mine));
          if (background) {
            // Turn 10 sent every message and started a job that succeeds; turn 11 (the running
            // process) adopts it. A fresh process has no job to adopt on turn 11 and sends the
            // thread as stored (what a job lost with its process leaves): not compared.
            expect(humans(first.mine)).toBe(10);
            await running.agent.invoke({ messages: [new HumanMessage(text(k++))] }, cfg());
            await tick();
          }
          const summary = await slot();
          expect(summary?.text).toMatch(/^SUMMARY: /);
          expect(summary?.lastAttempt).toBeUndefined();
          const request = lastRequest(running.model);
          expect(messageText(request[0] as BaseMessage)).toContain(summary?.text);
          // The view starts right after what the summary covers: nothing in neither.
          const all = await stored();
          const start = all.findIndex((m) => m.id === summary?.coveredThroughId) + 1;
          expect(start).toBeGreaterThan(0);
          expect(requestShape(request.filter((m) => m.getType() !== "system"))).toEqual(requestShape(all.slice(start, all.length - 1)));
          // And from the stored summary on, a fresh process sends what the running one does.
          const after = await oracleTurn(k);
          expect(requestShape(after.fresh)).toEqual(requestShape(after.mine));
          expect(JSON.stringify(after.mine)).toContain("Previous conversation summary");
          for (const model of models) expect(model.providerLog.rejected).toEqual([]);
        }, 60_000);
      });
