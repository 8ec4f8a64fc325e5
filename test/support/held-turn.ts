import type { BaseMessage } from "@langchain/core/messages";
import { messageText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import type { ThreadwiseSaver } from "@threadwise/memory";

/**
 * Holds a turn between its model call and its checkpoint: once the model answered a message
 * starting `answered`, every write of `saver` (`put` and `putWrites`) waits. Every write, as
 * LangGraph stores the next checkpoint without waiting for the answer's `putWrites` (holding that
 * one alone let the checkpoint with the answer through). `atGate` settles at the first held write;
 * `open()` lets them through. `model` answers `답 answer <k>: <the last message's first 20 characters>`.
 */
export function holdWritesAfterAnswer(saver: ThreadwiseSaver): {
  atGate: Promise<void>;
  open: () => void;
  model: ReturnType<typeof scriptedModel>;
} {
  let answered = false;
  let reached!: () => void;
  const atGate = new Promise<void>((resolve) => {
    reached = resolve;
  });
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const hold = async () => {
    if (!answered) return;
    reached();
    await gate;
  };
  const putWrites = saver.putWrites.bind(saver);
  saver.putWrites = async (...args: Parameters<typeof putWrites>) => {
    await hold();
    return putWrites(...args);
  };
  const put = saver.put.bind(saver);
  saver.put = async (...args: Parameters<typeof put>) => {
    await hold();
    return put(...args);
  };
  const model = scriptedModel((messages, k) => {
    const text = messageText(messages.at(-1) as BaseMessage);
    if (text.startsWith("answered")) answered = true;
    return `답 answer ${k}: ${text.slice(0, 20)}`;
  });
  return { atGate, open, model };
}
