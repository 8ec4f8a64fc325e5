/**
 * A tool that calls LangGraph's `interrupt()` in its body (ask the user, then go on), beside a
 * sibling call of the same answer, under the stack's window.
 *
 * - https://github.com/CopilotKit/CopilotKit/issues/1964 "INTERRUPT won't resume when called inside
 *   a tool in a reAct agent" (on resume Gemini refused the request: `contents.parts must not be
 *   empty`, the call left without its result);
 * - https://github.com/LibreChat-AI/agents/pull/294 "guard sibling double-execution when
 *   ask_user_question interrupts mid-batch" (the tool node runs again from the top on resume);
 * - https://github.com/langchain-ai/langgraph/issues/6533 "Interrupt resume values misrouted
 *   between tools when using a ToolNode";
 * - https://github.com/langchain-ai/agent-chat-ui/issues/85 (a new message sent instead of the
 *   resume while the tool waits).
 *
 * While the tool waits the stored thread holds an AI message whose calls have no results. The
 * resume must give each call one result, the model's next request must be one every provider
 * accepts with both results after their calls, and a new message sent instead of a resume too.
 */
import { convertPromptToAnthropic } from "@langchain/anthropic";
import { AIMessage, type BaseMessage, HumanMessage, type ToolMessage } from "@langchain/core/messages";
import { ChatPromptValue } from "@langchain/core/prompt_values";
import { Command, interrupt } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { PROVIDERS, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { isTool, lastOf, lookup, requests, stackAgent, storedMessages, summarizerModel } from "./support/report-agent.js";

function confirmTool(runs: string[]) {
  return tool(
    async ({ seat }: { seat: string }) => {
      runs.push(`confirm ${seat}`);
      const answer = interrupt({ question: `Book seat ${seat}?` }) as string;
      return `user said ${answer} for ${seat}`;
    },
    { name: "confirm", description: "Asks the user to confirm a seat.", schema: z.object({ seat: z.string() }) },
  );
}

/** "seat X" gets a confirm call and a sibling lookup in one answer; after results it reports them. */
function seatModel() {
  let n = 0;
  return strictModel({
    answer: (messages) => {
      const last = lastOf(messages);
      if (isTool(last))
        return `reported: ${messages
          .filter(isTool)
          .map((m) => messageText(m))
          .join(" | ")}`;
      // The last paragraph: two user turns sent as one are joined with a blank line.
      const seat = /^seat (\w+)/.exec(messageText(last).split("\n\n").at(-1) ?? "");
      if (seat) {
        n += 1;
        return new AIMessage({
          content: "",
          tool_calls: [
            { id: `call_c${n}`, name: "confirm", args: { seat: seat[1] }, type: "tool_call" },
            { id: `call_l${n}`, name: "lookup", args: { n }, type: "tool_call" },
          ],
        });
      }
      return `ok: ${messageText(last).split("\n\n").at(-1)}`;
    },
  });
}

const interrupted = async (agent: ReturnType<typeof stackAgent>["agent"], config: object) =>
  (await agent.graph.getState(config as never)).tasks.some((t) => (t.interrupts ?? []).length > 0);

describe("public reports: interrupt() inside a tool under the stack", () => {
  it("resumed: each call has one result, and the next requests are accepted with both results after their calls", async () => {
    const runs: string[] = [];
    const model = seatModel();
    const summarizer = summarizerModel();
    const { agent } = stackAgent({
      windowSize: 2,
      summarizeThreshold: 4,
      summarizer: summarizer.model,
      model,
      tools: [confirmTool(runs) as never, lookup],
    });
    const config = { configurable: { thread_id: "tool-interrupt" } };
    await agent.invoke({ messages: [new HumanMessage("hello")] }, config);
    await agent.invoke({ messages: [new HumanMessage("and again")] }, config);
    await agent.invoke({ messages: [new HumanMessage("seat 12A please")] }, config);
    expect(await interrupted(agent, config)).toBe(true);
    await agent.invoke(new Command({ resume: "yes" }) as never, config);
    expect(await interrupted(agent, config)).toBe(false);
    await agent.invoke({ messages: [new HumanMessage("thanks")] }, config);
    await agent.invoke({ messages: [new HumanMessage("seat 14C too")] }, config);
    await agent.invoke(new Command({ resume: "no" }) as never, config);
    await agent.invoke({ messages: [new HumanMessage("bye")] }, config);

    expect(model.providerLog.rejections).toBe(0);
    for (const request of requests(model)) expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
    const stored = await storedMessages(agent.graph as never, "tool-interrupt");
    const results = stored.filter(isTool).map((m) => (m as ToolMessage).tool_call_id);
    expect(results.sort()).toEqual(["call_c1", "call_c2", "call_l1", "call_l2"]);
    expect(stored.filter(isTool).map((m) => messageText(m))).toEqual(
      expect.arrayContaining(["user said yes for 12A", "user said no for 14C"]),
    );
    // The call after each resume answers both calls of the window's last group.
    const afterResume = requests(model).filter((r) => isTool(lastOf(r)));
    expect(afterResume).toHaveLength(2);
    for (const request of afterResume) expect(request.filter(isTool)).toHaveLength(2);
    expect(messageText(lastOf(stored))).toBe("ok: bye");
  });

  it("a new message sent instead of the resume is accepted, and the waiting calls are not sent", async () => {
    const runs: string[] = [];
    const model = seatModel();
    const { agent } = stackAgent({ windowSize: 4, model, tools: [confirmTool(runs) as never, lookup] });
    const config = { configurable: { thread_id: "tool-interrupt-abandoned" } };
    await agent.invoke({ messages: [new HumanMessage("seat 3B")] }, config);
    expect(await interrupted(agent, config)).toBe(true);
    await agent.invoke({ messages: [new HumanMessage("never mind, what time is it?")] }, config);
    expect(model.providerLog.rejections).toBe(0);
    const last = requests(model).at(-1) as BaseMessage[];
    expect(validateProviderRequest(last, { providers: PROVIDERS })).toEqual([]);
    // The waiting AI message is left out, so the two user messages are one turn (core's alternateRoles).
    expect(messageText(lastOf(last))).toBe("seat 3B\n\nnever mind, what time is it?");
    expect(last.some((m) => m.getType() === "ai" && ((m as AIMessage).tool_calls ?? []).length > 0)).toBe(false);
    expect(messageText(lastOf(await storedMessages(agent.graph as never, "tool-interrupt-abandoned")))).toBe(
      "ok: never mind, what time is it?",
    );
  });

  // An Anthropic answer (its call also a `tool_use` block, text before it) left waiting: the next
  // request sends the answer's text, and no `tool_use` without its `tool_result`
  // ("tool_use ids were found without tool_result blocks immediately after").
  it("an Anthropic answer with text and a tool_use block, left waiting: its text is sent, its tool_use is not", async () => {
    const runs: string[] = [];
    const model = strictModel({
      answer: (messages) => {
        const text = messageText(lastOf(messages)).split("\n\n").at(-1) ?? "";
        const seat = /^seat (\w+)/.exec(text);
        if (!seat) return `ok: ${text}`;
        const input = { seat: seat[1] };
        return new AIMessage({
          content: [
            { type: "text", text: `I will ask you to confirm seat ${seat[1]}.` },
            { type: "tool_use", id: "toolu_01", name: "confirm", input },
          ],
          tool_calls: [{ id: "toolu_01", name: "confirm", args: input, type: "tool_call" }],
        });
      },
    });
    const { agent } = stackAgent({ windowSize: 6, model, tools: [confirmTool(runs) as never, lookup] });
    const config = { configurable: { thread_id: "tool-interrupt-anthropic" } };
    await agent.invoke({ messages: [new HumanMessage("seat 9D")] }, config);
    expect(await interrupted(agent, config)).toBe(true);
    await agent.invoke({ messages: [new HumanMessage("actually, forget it")] }, config);
    expect(model.providerLog.rejections).toBe(0);
    const last = requests(model).at(-1) as BaseMessage[];
    expect(validateProviderRequest(last, { providers: PROVIDERS })).toEqual([]);
    const payload = convertPromptToAnthropic(new ChatPromptValue(last)) as unknown as {
      messages: Array<{ role: string; content: string | Array<{ type: string; text?: string }> }>;
    };
    expect(payload.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    const said = payload.messages[1]?.content as Array<{ type: string; text?: string }>;
    expect(said.map((b) => b.type)).toEqual(["text"]);
    expect(said[0]?.text).toBe("I will ask you to confirm seat 9D.");
    expect(runs).toEqual(["confirm 9D"]);
  });
});
