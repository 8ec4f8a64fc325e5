/**
 * Answers as `ChatOpenAI` with the Responses API stores them. Its own module, apart from
 * report-agent.ts: `@langchain/openai` is imported only by the suites that build such answers.
 */
import type { AIMessage } from "@langchain/core/messages";
import { convertResponsesMessageToAIMessage } from "@langchain/openai";

/** Token usage of a Responses answer (one token each way; the tests read none of it). */
const RESPONSES_USAGE = {
  input_tokens: 1,
  output_tokens: 1,
  total_tokens: 2,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens_details: { reasoning_tokens: 0 },
};

/**
 * An answer as `ChatOpenAI` with the Responses API stores it: `@langchain/openai`'s own conversion of
 * a completed `gpt-5` response `id` whose output items are `output` (`response_metadata.output`).
 */
export function responsesAnswer(id: string, output: object[]): AIMessage {
  return convertResponsesMessageToAIMessage({
    id,
    model: "gpt-5",
    object: "response",
    status: "completed",
    output,
    usage: RESPONSES_USAGE,
  } as never) as AIMessage;
}
