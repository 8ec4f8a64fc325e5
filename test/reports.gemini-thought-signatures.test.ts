/**
 * Gemini's thought signatures on tool calls whose ids the view renames.
 *
 * Gemini 3 returns a `thoughtSignature` with each function call and requires it back on later
 * turns: "Function call is missing a thought_signature" (https://ai.google.dev/gemini-api/docs/thought-signatures).
 * `@langchain/google-genai` keeps each call's signature per call id in the AI message's
 * `additional_kwargs.__gemini_function_call_thought_signatures__` and sends it with the call of that
 * id; a call whose id has no entry is sent to a gemini-3 model with a dummy signature (the
 * model's reasoning state is lost), to others without one.
 *
 * The view sends some call ids renamed (`portable-call-ids.ts`): an id another provider refuses
 * (`functions.lookup:0`), an id an earlier AI message of the request used (a model that numbers its
 * calls per answer). Each case runs the real `ChatGoogleGenerativeAI` in the stack, its client
 * answering as the API does, and reads every request its converter built.
 *
 * The view also sends an AI message without some of its calls (a parallel call partly answered,
 * R37): the signatures of the calls it leaves out leave with them.
 */
import { type AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { ChatGoogleGenerativeAI } from "@langchain/google-genai";
import { memoryStack } from "@threadwise/memory";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { lookup } from "./support/report-agent.js";

/** The signature map's key in `@langchain/google-genai`'s AI messages. */
const SIGNATURES = "__gemini_function_call_thought_signatures__";

interface Part {
  text?: string;
  functionCall?: { id?: string; name: string; args: unknown };
  functionResponse?: unknown;
  thoughtSignature?: string;
}
interface Request {
  contents: Array<{ role: string; parts: Part[] }>;
}

/**
 * `ChatGoogleGenerativeAI` (gemini-3) whose client records each request and answers as the API
 * does: a user turn `look up <n>` gets one `lookup` call with the id `callId(n)` and the signature
 * `sig-<n>`; after a function response, text.
 */
function geminiModel(callId: (n: number) => string) {
  const model = new ChatGoogleGenerativeAI({ model: "gemini-3-pro-preview", apiKey: "test-key" });
  const sent: Request[] = [];
  const answer = (parts: Part[]) => ({
    response: {
      candidates: [{ index: 0, content: { role: "model", parts }, finishReason: "STOP" }],
      usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
    },
  });
  // The client's network call only: the request is built, and the answer read, by the integration.
  (model as unknown as { client: { generateContent: unknown } }).client.generateContent = async (request: Request) => {
    sent.push(structuredClone(request));
    const last = request.contents.at(-1)?.parts ?? [];
    if (last.some((p) => p.functionResponse)) return answer([{ text: "done" }]);
    const n = Number(/look up (\d+)/.exec(last.map((p) => p.text ?? "").join(""))?.[1]);
    return answer([{ functionCall: { id: callId(n), name: "lookup", args: { n } }, thoughtSignature: `sig-${n}` }]);
  };
  return { model, sent };
}

/** The `thoughtSignature` of each function call in `request`, in order. */
const sentSignatures = (request: Request) =>
  request.contents.flatMap((c) => c.parts.filter((p) => p.functionCall).map((p) => p.thoughtSignature));

const CASES: Record<string, (n: number) => string> = {
  // Ids Anthropic and Bedrock refuse: sent as portable ids.
  "a non-portable call id": (n) => `functions.lookup:${n}`,
  // The same id on every answer: the later ones are sent renamed.
  "a call id repeated across answers": () => "call_0",
};

describe("public reports: Gemini thought signatures of renamed tool call ids", () => {
  for (const [name, callId] of Object.entries(CASES)) {
    it(`${name}: each call is sent with its own signature, never the dummy`, async () => {
      const { model, sent } = geminiModel(callId);
      const stack = memoryStack({ backend: "in_memory", windowSize: 8, recallMaxTokens: false, logger: false, env: {} });
      const agent = createAgent({ model, tools: [lookup], checkpointer: stack.checkpointer, middleware: stack.middleware });
      const config = { configurable: { thread_id: `gemini-${name}` } };
      for (const n of [1, 2, 3]) await agent.invoke({ messages: [new HumanMessage(`look up ${n}`)] }, config);
      const state = await agent.graph.getState(config);
      const stored = (state.values as { messages: BaseMessage[] }).messages.filter((m): m is AIMessage => m.getType() === "ai");
      // The thread keeps each call's id and signature as the integration stored them.
      const maps = stored.map((m) => m.additional_kwargs[SIGNATURES]).filter((map) => map && Object.keys(map).length > 0);
      expect(maps).toEqual([1, 2, 3].map((n) => ({ [callId(n)]: `sig-${n}` })));
      // The last request (after the third result) holds all three calls, each with its own signature.
      expect(sentSignatures(sent.at(-1) as Request)).toEqual(["sig-1", "sig-2", "sig-3"]);
      for (const request of sent) for (const signature of sentSignatures(request)) expect(signature).toMatch(/^sig-\d$/);
    });
  }
});

describe("public reports: Gemini thought signatures of calls the view leaves out", () => {
  // Was: the copy without the unanswered call kept that call's signature in its map.
  it("a partly answered parallel call: the copy sent holds the answered call's signature only; the stored map is unchanged", async () => {
    const model = new ChatGoogleGenerativeAI({ model: "gemini-3-pro-preview", apiKey: "test-key" });
    const sent: Request[] = [];
    (model as unknown as { client: { generateContent: unknown } }).client.generateContent = async (request: Request) => {
      sent.push(structuredClone(request));
      const parts: Part[] =
        sent.length === 1
          ? [1, 2].map((n) => ({ functionCall: { id: `call_${n}`, name: "lookup", args: { n } }, thoughtSignature: `sig-${n}` }))
          : [{ text: "done" }];
      return {
        response: {
          candidates: [{ index: 0, content: { role: "model", parts }, finishReason: "STOP" }],
          usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
        },
      };
    };
    // The answer as the integration stores it: two calls, a signature for each.
    const called = (await model.invoke([new HumanMessage("look up 1 and 2")])) as AIMessage;
    expect(called.tool_calls?.map((c) => c.id)).toEqual(["call_1", "call_2"]);
    expect(called.additional_kwargs[SIGNATURES]).toEqual({ call_1: "sig-1", call_2: "sig-2" });
    // What the converter is handed: the messages of each model call.
    const seen: BaseMessage[][] = [];
    const generate = model._generate.bind(model);
    model._generate = (messages, options, runManager) => {
      seen.push(messages);
      return generate(messages, options, runManager);
    };
    const stack = memoryStack({ backend: "in_memory", windowSize: 8, recallMaxTokens: false, logger: false, env: {} });
    const agent = createAgent({ model, tools: [lookup], checkpointer: stack.checkpointer, middleware: stack.middleware });
    const config = { configurable: { thread_id: "gemini-partly-answered" } };
    // Only call_2 was answered (a run stopped between the two results).
    const history = [
      new HumanMessage("look up 1 and 2"),
      called,
      new ToolMessage({ content: "2 found", tool_call_id: "call_2", name: "lookup" }),
      new HumanMessage("thanks"),
    ];
    await agent.invoke({ messages: history }, config);
    const copy = seen.at(-1)?.find((m): m is AIMessage => m.getType() === "ai" && (m as AIMessage).tool_calls?.length !== 0);
    expect(copy?.tool_calls?.map((c) => c.id)).toEqual(["call_2"]);
    expect(copy?.additional_kwargs[SIGNATURES]).toEqual({ call_2: "sig-2" });
    expect(sentSignatures(sent.at(-1) as Request)).toEqual(["sig-2"]);
    const state = await agent.graph.getState(config);
    const stored = (state.values as { messages: BaseMessage[] }).messages[1] as AIMessage;
    expect(stored.additional_kwargs[SIGNATURES]).toEqual({ call_1: "sig-1", call_2: "sig-2" });
  });
});
