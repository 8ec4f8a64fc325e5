/**
 * OpenAI Responses answers whose call the view leaves out, and the reasoning item before it.
 *
 * - https://github.com/openai/openai-agents-js/pull/1280 "drop reasoning items orphaned by dropped
 *   tool calls" (a replay kept a reasoning item while dropping the call after it: `Item 'rs_...' of
 *   type 'reasoning' was provided without its required following item`);
 * - https://github.com/openai/codex/pull/15542 "Drop orphan reasoning items before replay" (an
 *   interrupted turn left a trailing reasoning item before the next user message);
 * - https://github.com/openai/openai-dotnet/issues/1050 (keeping only the message items of an
 *   answer: `Item 'msg_...' of type 'message' was provided without its required preceding item of
 *   type 'reasoning'`).
 *
 * `@langchain/openai` sends an AI message that carries its Responses output items as those items.
 * An answer says something, then reasons again and calls a tool that waits for the user
 * (`interrupt()`); the user sends a new message instead. The view leaves the unanswered call out:
 * the items it sends must still pair each reasoning item with the item after it, and keep the
 * answer's text with the reasoning before it.
 */
import { type AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { interrupt } from "@langchain/langgraph";
import { convertMessagesToResponsesInput } from "@langchain/openai";
import { messageText } from "@threadwise/core";
import { PROVIDERS, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { lastOf, requests, stackAgent, storedMessages } from "./support/report-agent.js";
import { responsesAnswer } from "./support/responses-answer.js";

const reasoning = (id: string) => ({ type: "reasoning", id, summary: [], encrypted_content: `enc-${id}` });
const said = (id: string, text: string) => ({
  type: "message",
  id,
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text, annotations: [] }],
});

const confirm = tool(async ({ seat }: { seat: string }) => `user said ${interrupt({ question: `Book ${seat}?` })}`, {
  name: "confirm",
  description: "Asks the user to confirm a seat.",
  schema: z.object({ seat: z.string() }),
});

/** Answers as `ChatOpenAI` with the Responses API stores them; "seat X": text, then reasoning and a confirm call. */
function responsesModel() {
  let n = 0;
  const respond = (output: object[]) => {
    n += 1;
    return responsesAnswer(`resp_${n}`, output);
  };
  return strictModel({
    answer: (messages) => {
      const text = messageText(lastOf(messages)).split("\n\n").at(-1) ?? "";
      const seat = /^seat (\w+)/.exec(text);
      if (seat)
        return respond([
          reasoning(`rs_${n + 1}a`),
          said(`msg_${n + 1}`, `Let me check seat ${seat[1]} with you.`),
          reasoning(`rs_${n + 1}b`),
          {
            type: "function_call",
            id: `fc_${n + 1}`,
            call_id: `call_${n + 1}`,
            name: "confirm",
            arguments: JSON.stringify({ seat: seat[1] }),
            status: "completed",
          },
        ]);
      return respond([reasoning(`rs_${n + 1}`), said(`msg_${n + 1}`, `ok: ${text}`)]);
    },
  });
}

/** The Responses input `@langchain/openai` sends for a request. */
function wire(request: BaseMessage[]) {
  return convertMessagesToResponsesInput({ messages: request, zdrEnabled: false, model: "gpt-5" }) as Array<{
    type?: string;
    id?: string;
    call_id?: string;
  }>;
}

describe("public reports: Responses reasoning items around a call the view leaves out", () => {
  it("a new message instead of the resume: no reasoning item without its following item, the answer's text kept after its reasoning", async () => {
    const model = responsesModel();
    const { agent } = stackAgent({ model, windowSize: 10, tools: [confirm as never] });
    const config = { configurable: { thread_id: "responses-orphan-reasoning" } };
    await agent.invoke({ messages: [new HumanMessage("hello")] }, config);
    await agent.invoke({ messages: [new HumanMessage("seat 4F")] }, config);
    expect((await agent.graph.getState(config)).tasks.some((t) => (t.interrupts ?? []).length > 0)).toBe(true);
    await agent.invoke({ messages: [new HumanMessage("never mind, thanks")] }, config);
    await agent.invoke({ messages: [new HumanMessage("bye")] }, config);

    const stored = await storedMessages(agent.graph as never, "responses-orphan-reasoning");
    const waiting = stored.find((m) => m.id === "resp_2") as AIMessage;
    expect((waiting.tool_calls ?? []).map((c) => c.id)).toEqual(["call_2"]);
    expect(model.providerLog.rejections).toBe(0);
    for (const request of requests(model)) {
      expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
      const input = wire(request);
      input.forEach((item, k) => {
        if (item.type === "reasoning") expect(["reasoning", undefined]).not.toContain(input[k + 1]?.type);
      });
      expect(input.filter((i) => i.type === "function_call")).toEqual([]);
    }
    // The answer's text still reaches the model, after its reasoning item.
    const last = wire(requests(model).at(-1) as BaseMessage[]);
    const text = last.findIndex((i) => i.id === "msg_2");
    expect(text).toBeGreaterThan(0);
    expect(last[text - 1]).toMatchObject({ type: "reasoning", id: "rs_2a" });
    expect(last.some((i) => i.id === "rs_2b")).toBe(false);
  });
});
