/**
 * A tool call edited in a human-in-the-loop review, as the model sees it afterwards.
 *
 * - https://github.com/langchain-ai/langchain/issues/33787 "Agent re-attempts original tool call
 *   after HumanInTheLoopMiddleware edit decision" (the model compares the original request with the
 *   result of the edited call and calls the tool again with the original arguments), and
 *   https://github.com/langchain-ai/langchain/pull/33789 "ensure HITL middleware edit decisions
 *   persist in agent state";
 * - https://github.com/langchain-ai/langchain/issues/32988 "Human in loop middleware's edit
 *   argument passing issue" (the model does not get the edited call's response).
 *
 * langchain's HITL middleware writes the edited call into the AI message's `tool_calls` only. The
 * provider's own copies of the call stay as the model answered: Anthropic's `tool_use` block (its
 * `input`), Chat Completions' `additional_kwargs.tool_calls` (`function.arguments`), the OpenAI
 * Responses `function_call` item in `response_metadata.output`. `@langchain/anthropic` and
 * `@langchain/openai` send those copies, so the model was shown its original call (seat 12A)
 * answered by the edited call's result (seat 14C). Each case runs the review through the stack and
 * reads every later request as that provider's real converter sends it.
 */
import { convertPromptToAnthropic } from "@langchain/anthropic";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { ChatPromptValue } from "@langchain/core/prompt_values";
import { Command } from "@langchain/langgraph";
import {
  convertCompletionsMessageToBaseMessage,
  convertMessagesToCompletionsMessageParams,
  convertMessagesToResponsesInput,
  convertResponsesMessageToAIMessage,
} from "@langchain/openai";
import { messageText } from "@threadwise/core";
import { strictModel } from "@threadwise/core/testing";
import { humanInTheLoopMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { isTool, lastOf, requests, stackAgent, storedMessages } from "./support/report-agent.js";

const ORIGINAL = { seat: "12A" };
const EDITED = { seat: "14C" };

/** The model's answer calling `book` with {@link ORIGINAL}, as each provider's integration stores it. */
const ANSWERS: Record<string, () => AIMessage> = {
  anthropic: () =>
    new AIMessage({
      content: [
        { type: "text", text: "Booking it." },
        { type: "tool_use", id: "toolu_book", name: "book", input: ORIGINAL },
      ] as never,
      tool_calls: [{ id: "toolu_book", name: "book", args: ORIGINAL, type: "tool_call" }],
    }),
  "openai-completions": () =>
    convertCompletionsMessageToBaseMessage({
      message: {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_book", type: "function", function: { name: "book", arguments: JSON.stringify(ORIGINAL) } }],
      },
      rawResponse: { id: "chatcmpl-1", model: "gpt-4o", usage: {} },
    } as never) as AIMessage,
  "openai-responses": () =>
    convertResponsesMessageToAIMessage({
      id: "resp_book",
      model: "gpt-5",
      object: "response",
      status: "completed",
      output: [
        { type: "reasoning", id: "rs_book", summary: [] },
        {
          type: "function_call",
          id: "fc_book",
          call_id: "call_book",
          name: "book",
          arguments: JSON.stringify(ORIGINAL),
          status: "completed",
        },
      ],
      usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
    } as never),
};

/** The arguments of every call the provider's converter sends in `request`. */
function sentCallArgs(provider: string, request: BaseMessage[]): unknown[] {
  if (provider === "anthropic") {
    const payload = convertPromptToAnthropic(new ChatPromptValue(request)) as { messages: Array<{ content: unknown }> };
    return payload.messages.flatMap((m) =>
      Array.isArray(m.content)
        ? (m.content as Array<{ type: string; input?: unknown }>).filter((b) => b.type === "tool_use").map((b) => b.input)
        : [],
    );
  }
  if (provider === "openai-completions") {
    const wire = convertMessagesToCompletionsMessageParams({ messages: request, model: "gpt-4o" }) as Array<{
      tool_calls?: Array<{ function: { arguments: string } }>;
    }>;
    return wire.flatMap((m) => (m.tool_calls ?? []).map((c) => JSON.parse(c.function.arguments)));
  }
  const input = convertMessagesToResponsesInput({ messages: request, zdrEnabled: false, model: "gpt-5" }) as Array<{
    type?: string;
    arguments?: string;
  }>;
  return input.filter((item) => item.type === "function_call").map((item) => JSON.parse(item.arguments as string));
}

describe("public reports: a tool call edited in human-in-the-loop review", () => {
  for (const [provider, answer] of Object.entries(ANSWERS)) {
    it(`${provider}: every later request shows the call as edited, answered by its result`, async () => {
      const model = strictModel({
        answer: (messages) => {
          const last = lastOf(messages);
          if (isTool(last)) return `done: ${messageText(last)}`;
          if (messageText(last).startsWith("book")) return answer();
          return `ok: ${messageText(last)}`;
        },
      });
      const hitl = humanInTheLoopMiddleware({ interruptOn: { book: true } });
      const { agent } = stackAgent({ windowSize: 6, model, extra: [hitl], systemPrompt: false });
      const config = { configurable: { thread_id: `hitl-edit-${provider}` } };
      await agent.invoke({ messages: [new HumanMessage("book seat 12A")] }, config);
      await agent.invoke(
        new Command({ resume: { decisions: [{ type: "edit", editedAction: { name: "book", args: EDITED } }] } }) as never,
        config,
      );
      await agent.invoke({ messages: [new HumanMessage("which seat did I get?")] }, config);
      const stored = await storedMessages(agent as never, `hitl-edit-${provider}`);
      expect(stored.filter(isTool).map((m) => messageText(m))).toEqual(["booked seat 14C"]);
      expect(model.providerLog.rejections).toBe(0);
      // The requests after the review: the tool's result, then the next user turn.
      const after = requests(model).slice(1);
      expect(after).toHaveLength(2);
      for (const request of after) expect(sentCallArgs(provider, request)).toEqual([EDITED]);
    });
  }
});
