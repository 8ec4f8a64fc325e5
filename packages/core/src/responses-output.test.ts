import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { assembleView, EMPTY_DECISIONS } from "./assemble-view.js";
import { groupMessages } from "./groups.js";
import { type ResponsesOutputItem, responsesOutputFor, responsesOutputOf } from "./responses-output.js";
import { validateProviderRequest } from "./testing/provider-validator.js";

// An AI message as `@langchain/openai` 1.5's `convertResponsesMessageToAIMessage` stores a Responses
// answer: `tool_calls` from the `function_call` items, and the raw items in `response_metadata.output`,
// which `convertMessagesToResponsesInput` sends in place of the message's fields.
const reasoning = (id: string): ResponsesOutputItem => ({ type: "reasoning", id, summary: [] });
const fc = (callId: string): ResponsesOutputItem => ({
  type: "function_call",
  id: `fc_${callId}`,
  call_id: callId,
  name: "lookup",
  arguments: JSON.stringify({ q: callId }),
  status: "completed",
});
const text = (value: string): ResponsesOutputItem => ({
  type: "message",
  id: `msg_${value.length}`,
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text: value, annotations: [] }],
});
function responsesAi(
  id: string,
  output: ResponsesOutputItem[],
  callIds = output.filter((i) => i.type === "function_call").map((i) => String(i.call_id)),
) {
  const words = output.filter((i) => i.type === "message").map((i) => ((i.content as Array<{ text: string }>)[0] as { text: string }).text);
  return new AIMessage({
    id,
    content: words.map((w) => ({ type: "text", text: w })),
    tool_calls: callIds.map((c) => ({ id: c, name: "lookup", args: { q: c }, type: "tool_call" as const })),
    response_metadata: { model_provider: "openai", id, output },
  });
}
const result = (callId: string) =>
  new ToolMessage({ id: `t_${callId}`, content: `result ${callId}`, tool_call_id: callId, name: "lookup" });
const callIdsSent = (message: BaseMessage) =>
  (responsesOutputOf(message) ?? []).filter((i) => i.type === "function_call").map((i) => i.call_id);
const rulesOf = (messages: BaseMessage[]) =>
  validateProviderRequest(messages, { providers: ["openai"] }).map((v) => `${v.rule}@${v.index}`);
const noSystem = new SystemMessage("");

describe("OpenAI Responses output items in a view (langchainjs#11437)", () => {
  it("the validator refuses an AI message whose stored items call a tool its tool_calls do not", () => {
    const both = responsesAi("resp_1", [reasoning("rs_1"), fc("call_a"), fc("call_b")], ["call_a"]);
    expect(rulesOf([new HumanMessage("go"), both, result("call_a")])).toEqual(["responses_items@1"]);
    // Answered in full and matching: accepted.
    const ok = responsesAi("resp_2", [reasoning("rs_2"), fc("call_a"), fc("call_b")]);
    expect(rulesOf([new HumanMessage("go"), ok, result("call_a"), result("call_b")])).toEqual([]);
    // A reasoning item with nothing of its own after it.
    const bare = responsesAi("resp_3", [reasoning("rs_3"), text("hi"), reasoning("rs_4")]);
    expect(rulesOf([new HumanMessage("go"), bare])).toEqual(["responses_items@1"]);
  });

  it("a partly answered parallel call is sent with the items of its answered calls only, reasoning kept with them", () => {
    const stored = responsesAi("resp_1", [reasoning("rs_1"), fc("call_a"), fc("call_b")]);
    const thread = [
      new HumanMessage({ id: "h1", content: "look up a and b" }),
      stored,
      result("call_b"),
      new HumanMessage({ id: "h2", content: "and?" }),
    ];
    const view = assembleView(thread, noSystem, EMPTY_DECISIONS).messages;
    const sent = view.find((m) => m.id === "resp_1") as AIMessage;
    expect(sent.tool_calls?.map((c) => c.id)).toEqual(["call_b"]);
    expect(callIdsSent(sent)).toEqual(["call_b"]);
    expect((responsesOutputOf(sent) ?? []).map((i) => i.type)).toEqual(["reasoning", "function_call"]);
    expect(rulesOf(view)).toEqual([]);
    // The stored message is not changed.
    expect(callIdsSent(stored)).toEqual(["call_a", "call_b"]);
  });

  it("an AI message whose tool_calls were rewritten in place (langchain's HITL middleware) is sent without the stale items", () => {
    // HITL's reject among parallel calls sets `tool_calls` to the rejected call and answers it;
    // the other call's item stays in `response_metadata.output`.
    const stored = responsesAi("resp_1", [reasoning("rs_1"), fc("call_a"), fc("call_b")], ["call_a"]);
    const thread = [
      new HumanMessage({ id: "h1", content: "book" }),
      stored,
      result("call_a"),
      new AIMessage({ id: "a2", content: "rejected" }),
    ];
    expect(rulesOf(thread)).toEqual(["responses_items@1"]);
    const [, group] = groupMessages(thread);
    expect(group?.kind).toBe("tool_call");
    expect(callIdsSent(group?.messages[0] as BaseMessage)).toEqual(["call_a"]);
    const view = assembleView(thread, noSystem, EMPTY_DECISIONS).messages;
    expect(rulesOf(view)).toEqual([]);
    // A plain answer whose calls were all removed in place is sent without its call items.
    const emptied = responsesAi("resp_2", [text("Let me check."), fc("call_c")], []);
    const second = assembleView([new HumanMessage({ id: "h3", content: "hi" }), emptied], noSystem, EMPTY_DECISIONS).messages;
    expect(callIdsSent(second[1] as BaseMessage)).toEqual([]);
    expect(rulesOf(second)).toEqual([]);
  });

  it("a call edited in place under a new id is sent from the message's fields (no items)", () => {
    const edited = responsesAi("resp_1", [reasoning("rs_1"), fc("call_a")], ["call_new"]);
    const thread = [new HumanMessage({ id: "h1", content: "go" }), edited, result("call_new")];
    const view = assembleView(thread, noSystem, EMPTY_DECISIONS).messages;
    expect(responsesOutputOf(view[1] as BaseMessage)).toBeUndefined();
    expect((view[1] as AIMessage).tool_calls?.map((c) => c.id)).toEqual(["call_new"]);
    expect(rulesOf(view)).toEqual([]);
  });

  it("two AI messages merged for role alternation keep the items of both, in order", () => {
    const first = responsesAi("resp_1", [reasoning("rs_1"), text("The first answer.")]);
    const second = responsesAi("resp_2", [reasoning("rs_2"), text("Checking."), fc("call_a")]);
    const thread = [new HumanMessage({ id: "h1", content: "go" }), first, second, result("call_a")];
    const view = assembleView(thread, noSystem, EMPTY_DECISIONS).messages;
    expect(view.map((m) => m.getType())).toEqual(["human", "ai", "tool"]);
    const merged = view[1] as AIMessage;
    expect((responsesOutputOf(merged) ?? []).map((i) => i.id)).toEqual(["rs_1", "msg_17", "rs_2", "msg_9", "fc_call_a"]);
    expect(rulesOf(view)).toEqual([]);
    // Only one of them carries items: the merged message is sent from its joined content.
    const plain = new AIMessage({ id: "a1", content: "The first answer." });
    const mixed = assembleView([thread[0] as BaseMessage, plain, second, result("call_a")], noSystem, EMPTY_DECISIONS).messages;
    expect(responsesOutputOf(mixed[1] as BaseMessage)).toBeUndefined();
    expect(JSON.stringify((mixed[1] as AIMessage).content)).toContain("The first answer.");
  });

  it("responsesOutputFor keeps reasoning for a surviving sibling and drops it with its last item", () => {
    const items = [reasoning("rs_1"), fc("a"), fc("b"), reasoning("rs_2"), fc("c")];
    expect(responsesOutputFor(items, ["b", "c"])?.map((i) => i.id)).toEqual(["rs_1", "fc_b", "rs_2", "fc_c"]);
    expect(responsesOutputFor(items, ["c"])?.map((i) => i.id)).toEqual(["rs_2", "fc_c"]);
    expect(responsesOutputFor(items, ["a", "z"])).toBeUndefined();
    expect(responsesOutputFor([reasoning("rs_1"), fc("a")], [])).toBeUndefined();
  });
});
