import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { type ArchivedMessagesReader, newestArchivedBefore, runCheckpointIdOf, withArchived } from "./archived-messages.js";

const messages = (n: number, from = 0): BaseMessage[] =>
  Array.from({ length: n }, (_, i) =>
    (from + i) % 2 === 0
      ? new HumanMessage({ id: `m${from + i}`, content: `q${from + i}` })
      : new AIMessage({ id: `m${from + i}`, content: `a${from + i}` }),
  );

/** A reader over `archive` that honours `last` and records each call's `last`. */
function reader(archive: BaseMessage[], honoursLast = true) {
  const calls: Array<number | undefined> = [];
  const read: ArchivedMessagesReader = async (_threadId, options) => {
    calls.push(options?.last);
    return honoursLast && options?.last !== undefined ? archive.slice(Math.max(0, archive.length - options.last)) : archive;
  };
  return { read, calls };
}

/** The oracle: the message right before `stored` in `withArchived(archive, stored)`. */
const expected = (archive: BaseMessage[], stored: BaseMessage[]) => {
  const whole = withArchived(archive, stored);
  return whole.length > stored.length ? whole[whole.length - stored.length - 1] : undefined;
};

describe("newestArchivedBefore", () => {
  it("reads only the newest archived message when it is not stored", async () => {
    const archive = messages(1000);
    const stored = messages(20, 1000);
    const { read, calls } = reader(archive);
    expect((await newestArchivedBefore(read, "t", stored))?.id).toBe("m999");
    expect(calls).toEqual([1]);
  });

  it("skips archived messages also stored (a crash between the two writes), reading further back as needed", async () => {
    const archive = messages(1000);
    for (const overlap of [1, 7, 8, 9, 63, 64, 65, 600]) {
      // The newest `overlap` archived messages are still stored, at the stored part's start.
      const stored = [...archive.slice(1000 - overlap), ...messages(5, 1000)];
      const { read } = reader(archive);
      expect((await newestArchivedBefore(read, "t", stored))?.id).toBe(expected(archive, stored)?.id);
      expect((await newestArchivedBefore(read, "t", stored))?.id).toBe(`m${999 - overlap}`);
    }
  });

  it("is undefined for an empty archive and for an archive whose every message is stored", async () => {
    expect(await newestArchivedBefore(reader([]).read, "t", messages(3))).toBeUndefined();
    for (const n of [1, 8, 9, 64, 100]) {
      const archive = messages(n);
      expect(await newestArchivedBefore(reader(archive).read, "t", [...archive, ...messages(2, n)])).toBeUndefined();
    }
  });

  it("gives the same answer with a reader that ignores `last`", async () => {
    const archive = messages(300);
    for (const overlap of [0, 1, 10, 299, 300]) {
      const stored = [...archive.slice(300 - overlap), ...messages(4, 300)];
      expect((await newestArchivedBefore(reader(archive, false).read, "t", stored))?.id).toBe(expected(archive, stored)?.id);
    }
  });
});

describe("runCheckpointIdOf", () => {
  it('reads the root checkpoint a task runs from (checkpoint_map[""]), undefined outside a checkpointed run', () => {
    expect(runCheckpointIdOf({ configurable: { checkpoint_map: { "": "1f0-root", "child:1": "1f0-child" } } })).toBe("1f0-root");
    expect(runCheckpointIdOf({ configurable: { checkpoint_map: { "child:1": "1f0-child" } } })).toBeUndefined();
    expect(runCheckpointIdOf({ configurable: { checkpoint_map: { "": "" } } })).toBeUndefined();
    expect(runCheckpointIdOf({ configurable: { thread_id: "t" } })).toBeUndefined();
    expect(runCheckpointIdOf(undefined)).toBeUndefined();
  });
});
