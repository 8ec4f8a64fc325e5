/**
 * A run resumed (`invoke(null)`) at a head whose tasks already have their writes: a writer stopped
 * between a tool's result write and the checkpoint after it (spec R38; found by
 * `test/tool-crash.slow.test.ts`, a real SIGKILL). LangGraph's first act for such a resume is the put
 * of the checkpoint after that step, before any model or tool call, so `turnAdmission` claims no
 * lease for it; that put was stored as a step of the writer's turn (its parent is the head and the
 * lease is live), and the resume ran its model call inside another writer's lease (PostgreSQL: at
 * once after the kill; SQLite and in memory when the put came after `turnAdmission` saw the run).
 * It is a run start now: refused `turn-in-progress` before any call while the lease is live, and
 * admitted once it lapses, finishing from the stored result without running the tool again.
 * The writer here is stopped, not killed: its put of the checkpoint after the tool's result never
 * returns. In memory the resume runs on the same saver; on SQLite and PostgreSQL on a second saver
 * (another process). English and Korean.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { messageText } from "@threadwise/core";
import { memoryStack, ThreadwiseConcurrentTurnError, type ThreadwiseSaver, withTurnRetry } from "@threadwise/memory";
import { afterEach, describe, expect, it } from "vitest";
import { crashAgent } from "./fixtures/tool-crash-agent.js";
import { BACKENDS, type Backend, backendStorage } from "./support/threadwise-savers.js";

const storage = backendStorage("resumetool");
/** Short: the test waits for it to lapse once per case. */
const TURN_LEASE_MS = 1500;
const dir = mkdtempSync(join(tmpdir(), "tw-resumetool-"));

const opened: ThreadwiseSaver[] = [];
afterEach(async () => {
  for (const saver of opened.splice(0)) await saver.close().catch(() => undefined);
});

const LANGUAGES = { en: "Book the 9:00 train to Busan.", ko: "부산행 9시 기차 예매해 줘." } as const;
const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean) : []);

function stackOn(backend: Backend) {
  const stack = memoryStack({
    ...storage(backend),
    turnLeaseMs: TURN_LEASE_MS,
    summarize: false,
    recallMaxTokens: false,
    logger: false,
    env: {},
  });
  opened.push(stack.checkpointer as ThreadwiseSaver);
  return stack;
}

describe.each(BACKENDS)("a resume at a head whose tool result is stored, the writer stopped (%s)", (backend) => {
  for (const language of ["en", "ko"] as const)
    it(`is refused turn-in-progress before any call while the writer's lease runs, then finishes without the tool (${language})`, async () => {
      const logs = { toolLog: join(dir, `${randomUUID()}.tools`), modelLog: join(dir, `${randomUUID()}.models`) };
      const writer = stackOn(backend);
      const saver = writer.checkpointer as ThreadwiseSaver;
      // The stop: the put of the checkpoint after the tool's step waits for the result's write, then never returns.
      let toolWrite: { at: unknown; written: Promise<void> } | undefined;
      let stopped!: () => void;
      const stop = new Promise<void>((resolve) => {
        stopped = resolve;
      });
      const putWrites = saver.putWrites.bind(saver);
      saver.putWrites = (config, writes, taskId, taskPath) => {
        const written = putWrites(config, writes, taskId, taskPath);
        const result = writes.some(
          ([channel, value]) => channel === "messages" && (Array.isArray(value) ? value : [value]).some((m) => ToolMessage.isInstance(m)),
        );
        if (result && toolWrite === undefined) toolWrite = { at: config.configurable?.checkpoint_id, written };
        return written;
      };
      const put = saver.put.bind(saver);
      let held = false;
      saver.put = (config, checkpoint, metadata, versions) => {
        if (held || toolWrite === undefined || config.configurable?.checkpoint_id !== toolWrite.at)
          return put(config, checkpoint, metadata, versions);
        held = true;
        return toolWrite.written.then(() => {
          stopped();
          return new Promise<never>(() => undefined);
        });
      };
      const thread = `t-${randomUUID()}`;
      void crashAgent(writer, logs)
        .invoke({ messages: [new HumanMessage(LANGUAGES[language])] }, { configurable: { thread_id: thread } })
        .catch(() => undefined);
      await stop;
      expect(lines(logs.toolLog)).toHaveLength(1);

      const other = backend === "in_memory" ? writer : stackOn(backend);
      // Its own model log: the stopped writer may still call its model (LangGraph runs the next step while its put is in flight).
      const resumed = { toolLog: logs.toolLog, modelLog: join(dir, `${randomUUID()}.models`) };
      const agent = crashAgent(other, resumed);
      const resume = () => agent.invoke(null as never, { configurable: { thread_id: thread } });
      const refused = await resume().then(
        () => undefined,
        (error: unknown) => error,
      );
      const lease = ThreadwiseConcurrentTurnError.find(refused);
      expect(lease?.reason).toBe("turn-in-progress");
      expect(lease?.leaseExpiresInMs).toBeLessThanOrEqual(TURN_LEASE_MS);
      expect(lines(resumed.modelLog)).toEqual([]);
      expect(lines(logs.toolLog)).toHaveLength(1);

      const done = await withTurnRetry(resume);
      const [ticket] = lines(logs.toolLog);
      expect(lines(logs.toolLog)).toEqual([ticket]);
      expect(lines(resumed.modelLog)).toHaveLength(1);
      expect(done.messages.map((m) => [m.getType(), messageText(m)])).toEqual([
        ["human", LANGUAGES[language]],
        ["ai", ""],
        ["tool", `ticket ${ticket}`],
        ["ai", `done: ticket ${ticket}`],
      ]);
    });
});
