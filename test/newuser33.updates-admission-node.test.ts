/**
 * With `hideMemoryState`, `streamMode: "updates"` carries no chunk of memoryStack's
 * `threadwise/turn-admission.before_agent` node (was: `{ "threadwise/turn-admission.before_agent":
 * {} }` each turn, a node the user did not add, with nothing in it). The node still runs: a turn
 * started while another holds the thread is still refused before any model call. Without
 * `hideMemoryState` the stream is LangGraph's own, unchanged. English and Korean turns.
 */
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { scriptedModel } from "@threadwise/core/testing";
import { hideMemoryState, memoryStack, ThreadwiseConcurrentTurnError } from "@threadwise/memory";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";

/** A model whose answer waits for `release()`: the turn holding the thread. */
class GatedModel extends BaseChatModel {
  started: Promise<void>;
  #started!: () => void;
  #gate: Promise<void>;
  release!: () => void;
  constructor() {
    super({});
    this.started = new Promise((resolve) => {
      this.#started = resolve;
    });
    this.#gate = new Promise((resolve) => {
      this.release = resolve;
    });
  }
  _llmType() {
    return "gated";
  }
  override bindTools() {
    return this;
  }
  async _generate(): Promise<ChatResult> {
    this.#started();
    await this.#gate;
    return { generations: [{ text: "held", message: new AIMessage("held") }] };
  }
}

const ADMISSION = "threadwise/turn-admission.before_agent";

async function updateNodes(agent: { stream: (...args: never[]) => unknown }, thread: string, text: string): Promise<string[]> {
  const stream = (await (agent.stream as (input: unknown, options: unknown) => Promise<AsyncIterable<Record<string, unknown>>>)(
    { messages: [{ role: "user", content: text }] },
    { configurable: { thread_id: thread }, streamMode: "updates" },
  )) as AsyncIterable<Record<string, unknown>>;
  const nodes: string[] = [];
  for await (const chunk of stream) nodes.push(...Object.keys(chunk));
  return nodes;
}

describe("the updates stream and turn admission's node", () => {
  for (const [language, texts] of [
    ["English", ["Hi, I'm Mina.", "Where do I live?"]],
    ["Korean", ["안녕하세요, 민아예요.", "제가 어디 살아요?"]],
  ] as const)
    it(`${language}: hideMemoryState leaves the empty admission chunk out; the model's chunk stays`, async () => {
      const agent = hideMemoryState(createAgent({ model: scriptedModel(() => "ok"), tools: [], ...memoryStack({ env: {} }) }));
      for (const text of texts) expect(await updateNodes(agent, `u-${language}`, text)).toEqual(["model_request"]);
      const plain = createAgent({ model: scriptedModel(() => "ok"), tools: [], ...memoryStack({ env: {} }) });
      expect(await updateNodes(plain, "plain", texts[0])).toEqual([ADMISSION, "model_request"]);
    });

  it("the hidden node still admits: a second turn while the first holds the thread is refused before its model call", async () => {
    const stack = memoryStack({ env: {} });
    const gated = new GatedModel();
    const holder = hideMemoryState(createAgent({ model: gated, tools: [], ...stack }));
    let calls = 0;
    const other = hideMemoryState(
      createAgent({
        model: scriptedModel(() => {
          calls += 1;
          return "ok";
        }),
        tools: [],
        ...stack,
      }),
    );
    const config = { configurable: { thread_id: "busy" } };
    const first = holder.invoke({ messages: [{ role: "user", content: "첫 번째 질문" }] }, config);
    await gated.started;
    const second = await other.invoke({ messages: [{ role: "user", content: "second question" }] }, config).catch((e: unknown) => e);
    expect(ThreadwiseConcurrentTurnError.find(second)?.reason).toBe("turn-in-progress");
    expect(calls).toBe(0);
    gated.release();
    await first;
  });
});
