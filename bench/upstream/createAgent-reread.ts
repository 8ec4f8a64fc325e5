/**
 * Minimal repro for the upstream report `createAgent-reread.md`: with any middleware, `createAgent`
 * reads the whole checkpoint again on every `invoke` (`ReactAgent.#initializeMiddlewareStates`
 * calls `getState`), so a step costs one more `getTuple` and one more deserialization of the
 * thread. Self-contained: only `langchain`, `@langchain/core` and `@langchain/langgraph`.
 *
 *   pnpm tsx bench/upstream/createAgent-reread.ts                  # 1,000 stored messages, 10 steps each
 *   pnpm tsx bench/upstream/createAgent-reread.ts --messages 10000 --steps 5
 *
 * Prints, per agent (no middleware / one pass-through `wrapModelCall` middleware): `getTuple`
 * calls per `invoke` and the median CPU ms per `invoke` (`process.cpuUsage`, steps interleaved).
 */
import { parseArgs } from "node:util";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent, createMiddleware } from "langchain";

const { values } = parseArgs({ options: { messages: { type: "string", default: "1000" }, steps: { type: "string", default: "10" } } });
const MESSAGES = Number(values.messages);
const STEPS = Number(values.steps);

class OkModel extends BaseChatModel {
  _llmType() {
    return "ok";
  }
  override bindTools() {
    return this;
  }
  async _generate(): Promise<ChatResult> {
    return { generations: [{ text: "ok", message: new AIMessage("ok") }] };
  }
}

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;

async function lane(name: string, middleware: ReturnType<typeof createMiddleware>[]) {
  const saver = new MemorySaver();
  let reads = 0;
  const getTuple = saver.getTuple.bind(saver);
  saver.getTuple = (config) => {
    reads += 1;
    return getTuple(config);
  };
  const agent = createAgent({ model: new OkModel({}), tools: [], checkpointer: saver, middleware });
  const config = { configurable: { thread_id: name } };
  const seed = Array.from({ length: MESSAGES }, (_, i) =>
    i % 2 === 0
      ? new HumanMessage(`question ${i}: ${"lorem ipsum ".repeat(12)}`)
      : new AIMessage(`answer ${i}: ${"dolor sit ".repeat(12)}`),
  );
  await agent.graph.updateState(config, { messages: seed }, "model_request");
  const times: number[] = [];
  const readsPerStep: number[] = [];
  return {
    name,
    times,
    readsPerStep,
    step: async (k: number) => {
      const r0 = reads;
      const c0 = cpu();
      await agent.invoke({ messages: [new HumanMessage(`step ${k}`)] }, config);
      times.push(cpu() - c0);
      readsPerStep.push(reads - r0);
    },
  };
}

const lanes = [
  await lane("no middleware", []),
  await lane("one pass-through middleware", [
    createMiddleware({ name: "pass-through", wrapModelCall: (request, handler) => handler(request) }),
  ]),
];
for (let k = 0; k < STEPS + 1; k += 1) for (const l of k % 2 ? [...lanes].reverse() : lanes) await l.step(k);
console.log(`${MESSAGES} stored messages, ${STEPS} steps per agent (first step dropped), MemorySaver, node ${process.version}`);
for (const l of lanes) {
  console.log(
    `${l.name.padEnd(30)} getTuple calls per invoke: ${median(l.readsPerStep.slice(1))}  median CPU ms per invoke: ${median(l.times.slice(1)).toFixed(1)}`,
  );
}
