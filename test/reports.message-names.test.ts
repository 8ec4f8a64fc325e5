/**
 * Messages of several speakers (`name`: users of a group chat, the agents of a supervisor) where
 * the view merges two turns of one role for Bedrock and Gemini.
 *
 * - https://github.com/aws-samples/sample-voice-of-customer-datalake/pull/309 ("The roundtable merge
 *   conflates personas into one voice": a same-role merge for Bedrock put several personas' words in
 *   one message under one speaker);
 * - https://github.com/chatwoot/ai-agents/issues/67 "Preserve per-message agent attribution"
 *   (earlier agents' messages re-attributed to the last agent after a handoff: the next run started
 *   with the wrong specialist);
 * - https://github.com/langchain-ai/langchainjs/pull/9684 (`name` tells the model who said what;
 *   OpenAI sends it with each message to tell participants of one role apart).
 *
 * Bedrock Converse and Gemini refuse two turns of one role in a row, so the view sends them as one
 * message. Under the name of one speaker, the other's words would be attributed to it (OpenAI's
 * converter sends that `name`): a merged message must carry a name only when every part had it.
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { convertMessagesToCompletionsMessageParams } from "@langchain/openai";
import { messageText } from "@threadwise/core";
import { PROVIDERS, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { describe, expect, it } from "vitest";
import { requests, stackAgent, storedMessages } from "./support/report-agent.js";

/** Each sent message that carries a name, with the names of the stored messages whose text it holds. */
function attributions(request: readonly BaseMessage[], stored: readonly BaseMessage[]) {
  return request
    .filter((m) => m.getType() !== "system")
    .map((sent) => ({
      name: sent.name,
      authors: [
        ...new Set(
          stored.filter((m) => messageText(m) !== "" && messageText(sent).includes(messageText(m))).map((m) => m.name ?? "(none)"),
        ),
      ],
    }));
}

describe("public reports: speakers of merged turns", () => {
  it("two users' messages in one turn, and an agent's answer after another's: no merged message carries one speaker's name over another's words", async () => {
    // Answers that quote no one, so that the text a sent message holds tells whose words it carries.
    const { agent, model } = stackAgent({ windowSize: 12, model: strictModel({ answer: (_, call) => `answer ${call + 1}` }) });
    const config = { configurable: { thread_id: "names" } };
    await agent.invoke(
      {
        messages: [
          new HumanMessage({ content: "I am Alice, I want tea.", name: "alice" }),
          new HumanMessage({ content: "I am Bob, coffee.", name: "bob" }),
        ],
      },
      config,
    );
    // A supervisor hands the thread to this agent after the researcher's report.
    await agent.invoke(
      {
        messages: [
          new AIMessage({ content: "Research: tea is cheaper.", name: "researcher" }),
          new HumanMessage({ content: "Which is cheaper?", name: "alice" }),
        ],
      },
      config,
    );
    await agent.invoke({ messages: [new HumanMessage({ content: "thanks", name: "bob" })] }, config);
    expect(model.providerLog.rejections).toBe(0);
    const stored = await storedMessages(agent.graph as never, "names");
    for (const request of requests(model)) {
      expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
      for (const { name, authors } of attributions(request, stored))
        if (name !== undefined) expect(authors, `sent as ${name}`).toEqual([name]);
      // What OpenAI's converter sends: a `name` only on messages of that speaker alone.
      const wire = convertMessagesToCompletionsMessageParams({ messages: request as BaseMessage[], model: "gpt-4o" }) as Array<{
        name?: string;
        content?: unknown;
      }>;
      for (const m of wire) if (m.name === "bob") expect(JSON.stringify(m.content)).not.toContain("Alice");
      for (const m of wire) if (m.name === "researcher") expect(JSON.stringify(m.content)).not.toContain("answer");
    }
    // Both users' words and the researcher's report still reach the model.
    const last = JSON.stringify(
      requests(model)
        .at(-1)
        ?.map((m) => messageText(m)),
    );
    for (const text of ["I am Alice", "I am Bob", "Research: tea is cheaper."]) expect(last).toContain(text);
  });
});
