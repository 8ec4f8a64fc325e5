/**
 * The default path (archive off) on a thread that never archived pays no archive read (archiveoff65).
 * Since newuser65 the stack reads a thread's archive whatever `archive` says (a thread archived
 * while it was on keeps its archive in recall), so every model call of every thread asked the
 * registry (one indexed query, after waiting for the thread's checkpoint writes in flight). The
 * saver now knows a thread's archive is empty from the mark each of its root puts reads in its
 * transaction, and answers `[]` without asking.
 *
 * The oracle for every answer: a fresh process (a new stack on a backup of the same SQLite file)
 * continuing from the stored state. Cases: another process with the archive on archives the
 * thread between two of our turns; a fork from a checkpoint stored before the thread archived
 * (no mark); the thread erased by another process.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BaseMessage } from "@langchain/core/messages";
import { messageText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { hideMemoryState, memoryStack } from "@threadwise/memory";
import Database from "better-sqlite3";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { BOOKING_CODE_CASES, bookingStackOptions } from "./support/booking-code-cases.js";

const dir = mkdtempSync(join(tmpdir(), "tw-archiveoff65-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const THREAD = "never-archived";

const CASES = BOOKING_CODE_CASES;

/** A stack on `path` (one process's), its agent, and the text of each request its model got. */
function open(path: string, archive: boolean, failOn?: string) {
  const requests: string[][] = [];
  const stack = memoryStack(bookingStackOptions(path, archive));
  const model = scriptedModel((messages: BaseMessage[]) => {
    if (failOn !== undefined && messageText(messages.at(-1) as BaseMessage) === failOn) throw new Error("provider down");
    requests.push(messages.map((m) => `${m.getType()}: ${messageText(m)}`));
    return "Noted.";
  });
  const agent = hideMemoryState(createAgent({ model, tools: [], ...stack }));
  const saver = stack.checkpointer;
  if (!saver) throw new Error("the sqlite stack has a checkpointer");
  const turn = (content: string, checkpointId?: string) =>
    agent.invoke(
      { messages: [{ role: "user", content }] },
      { configurable: { thread_id: THREAD, ...(checkpointId ? { checkpoint_id: checkpointId } : {}) } },
    );
  // A run resumed from the head (`invoke(null)`): its first model call comes before any checkpoint of its own.
  const resume = () => agent.invoke(null, { configurable: { thread_id: THREAD } });
  return { requests, saver, turn, resume, close: () => saver.close() };
}

/** The registry's archive reads of `saver` (each one indexed query on SQLite and PostgreSQL), counted. */
function countArchiveQueries(saver: { registry: object }) {
  const registry = saver.registry as Record<string, (...args: unknown[]) => unknown>;
  const count = { n: 0 };
  for (const name of ["readArchive", "readArchiveTail", "archivedAmong", "archiveMark"]) {
    const original = registry[name];
    if (typeof original !== "function") continue;
    registry[name] = (...args: unknown[]) => {
      count.n += 1;
      return original.apply(registry, args);
    };
  }
  return count;
}

/** An online backup of the SQLite file (consistent while other connections hold it open). */
async function backup(path: string, to: string) {
  const db = new Database(path, { readonly: true });
  await db.backup(to);
  db.close();
}

describe("a thread that never archived, archive off", () => {
  for (const c of CASES)
    it(`asks the registry nothing about its archive at a model call (${c.lang})`, async () => {
      const a = open(join(dir, `count-${c.lang}.sqlite`), false);
      await a.turn(c.said);
      const count = countArchiveQueries(a.saver);
      for (let i = 0; i < 12; i++) await a.turn(c.filler(i));
      // Was one readArchive per model call (recall's archivedMessages), plus windowTrim's.
      expect(count.n).toBe(0);
      expect(a.requests).toHaveLength(13);
      expect(await a.saver.archivedMessages(THREAD)).toEqual([]);
      await a.close();
    });

  for (const c of CASES)
    it(`sees what another process archived between two of its turns, as a fresh process does (${c.lang})`, async () => {
      const path = join(dir, `between-${c.lang}.sqlite`);
      const a = open(path, false);
      await a.turn(c.filler(0));
      await a.turn(c.filler(1));
      // Another process, archive on: the booking code is said, then archived.
      const b = open(path, true);
      for (const content of [c.said, ...Array.from({ length: 30 }, (_, i) => c.filler(i + 2))]) await b.turn(content);
      expect((await b.saver.archivedMessages(THREAD)).map(messageText)).toContain(c.said);
      await b.close();
      const copy = join(dir, `between-${c.lang}.copy.sqlite`);
      await backup(path, copy);

      const asked = a.requests.length;
      await a.turn(c.ask);
      const fresh = open(copy, false);
      await fresh.turn(c.ask);
      // Recall found the code in the archive (the window does not hold it): in both, equal.
      expect(fresh.requests[0]?.join("\n")).toContain("QX-4417");
      expect(a.requests.slice(asked)).toEqual(fresh.requests);
      expect((await a.saver.archivedMessages(THREAD)).length).toBeGreaterThan(0);
      await a.close();
      await fresh.close();
    });

  for (const c of CASES)
    it(`resumes a run another process left after archiving, as a fresh process does (${c.lang})`, async () => {
      const path = join(dir, `resume-${c.lang}.sqlite`);
      const a = open(path, false);
      await a.turn(c.filler(0));
      // Another process, archive on, archives the booking code, then its model fails at the question:
      // the head is the question's input checkpoint, its model call still to run.
      const b = open(path, true, c.ask);
      for (const content of [c.said, ...Array.from({ length: 30 }, (_, i) => c.filler(i + 1))]) await b.turn(content);
      await expect(b.turn(c.ask)).rejects.toThrow("provider down");
      await b.close();
      const copy = join(dir, `resume-${c.lang}.copy.sqlite`);
      await backup(path, copy);

      const asked = a.requests.length;
      await a.resume();
      const fresh = open(copy, false);
      await fresh.resume();
      expect(fresh.requests[0]?.join("\n")).toContain("QX-4417");
      expect(a.requests.slice(asked)).toEqual(fresh.requests);
      await a.close();
      await fresh.close();
    });

  for (const c of CASES)
    it(`forks from a checkpoint stored before the thread archived (no mark) as a fresh process does (${c.lang})`, async () => {
      const path = join(dir, `fork-${c.lang}.sqlite`);
      const a = open(path, false);
      await a.turn(c.said);
      await a.turn(c.filler(0));
      // The root checkpoints so far, stored with the archive off on a thread without one: no mark.
      const early: string[] = [];
      for await (const tuple of a.saver.list({ configurable: { thread_id: THREAD, checkpoint_ns: "" } })) {
        expect((tuple.metadata as Record<string, unknown> | undefined)?.threadwise_archive).toBeUndefined();
        early.push(tuple.checkpoint.id);
      }
      const b = open(path, true);
      for (let i = 1; i <= 30; i++) await b.turn(c.filler(i));
      expect((await b.saver.archivedMessages(THREAD)).map(messageText)).toContain(c.said);
      await b.close();
      const copy = join(dir, `fork-${c.lang}.copy.sqlite`);
      await backup(path, copy);

      // The newest checkpoint of the first two turns, an unmarked one.
      const from = early[0] as string;
      const asked = a.requests.length;
      const ours = await a.turn(c.ask, from).then(
        () => "ok",
        (error: unknown) => (error as Error).name,
      );
      const fresh = open(copy, false);
      const theirs = await fresh.turn(c.ask, from).then(
        () => "ok",
        (error: unknown) => (error as Error).name,
      );
      expect(ours).toBe(theirs);
      expect(a.requests.slice(asked)).toEqual(fresh.requests);
      await a.close();
      await fresh.close();
    });

  for (const c of CASES)
    it(`reads an erased thread as a fresh process does (${c.lang})`, async () => {
      const path = join(dir, `erase-${c.lang}.sqlite`);
      const a = open(path, false);
      await a.turn(c.said);
      await a.turn(c.filler(0));
      const b = open(path, true);
      await b.saver.deleteThread(THREAD);
      await b.close();
      const fresh = open(path, false);
      expect(await a.saver.archivedMessages(THREAD)).toEqual(await fresh.saver.archivedMessages(THREAD));
      expect(await a.saver.archivedAmong(THREAD, ["x"])).toEqual(await fresh.saver.archivedAmong(THREAD, ["x"]));
      const ours = await a.turn(c.ask).then(
        () => "ok",
        (error: unknown) => (error as Error).name,
      );
      const theirs = await fresh.turn(c.ask).then(
        () => "ok",
        (error: unknown) => (error as Error).name,
      );
      expect(ours).toBe(theirs);
      await a.close();
      await fresh.close();
    });
});
