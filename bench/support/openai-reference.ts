/**
 * The provider-style token count a request is measured against (bench/token-count.ts), for an
 * OpenAI chat-completions request to gpt-4o (o200k_base). Stated precisely:
 *
 * 1. Messages are serialized by `@langchain/openai`'s own converter
 *    (`convertMessagesToCompletionsMessageParams`, what `ChatOpenAI` sends).
 * 2. Each message costs, as OpenAI's cookbook `num_tokens_from_messages` counts it
 *    ("How to count tokens with tiktoken", gpt-4o branch): 3 tokens, plus the tokens of every
 *    string field of the wire message (`role`, `content`, `name`, `tool_call_id`), plus 1 when
 *    `name` is present. Content arrays count the text of their text parts. The cookbook has no
 *    rule for `tool_calls`; each call counts as `openai-chat-tokens` counts a `function_call`:
 *    its name, its `arguments` string, and 3.
 * 3. Every request adds 3 tokens of reply priming (`<|start|>assistant<|message|>`).
 * 4. Tools are rendered the way OpenAI puts them in the prompt, as TypeScript definitions in a
 *    `namespace functions` block, by `openai-chat-tokens`' `formatFunctionDefinitions` (an
 *    independent implementation, fitted to the API's `prompt_tokens`); that text's tokens plus 9;
 *    when a system message is present, 4 fewer and the system message gets a trailing newline
 *    (the same package's findings).
 *
 * Tokens are js-tiktoken's exact `encode(text).length` (the same ranks as Python tiktoken).
 */
import type { BaseMessage } from "@langchain/core/messages";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { convertMessagesToCompletionsMessageParams } from "@langchain/openai";
import { getEncoding, type Tiktoken } from "js-tiktoken";
// The package's root export counts with cl100k_base; only its renderer is used here.
import { formatFunctionDefinitions } from "openai-chat-tokens/dist/functions.js";

let encoder: Tiktoken | undefined;

/** Exact o200k_base tokens of a text. */
export function o200kTokens(text: string): number {
  encoder ??= getEncoding("o200k_base");
  return encoder.encode(text, "all").length;
}

interface WireMessage {
  role: string;
  content?: string | Array<{ type?: string; text?: string }> | null;
  name?: string;
  tool_call_id?: string;
  tool_calls?: Array<{ function: { name: string; arguments: string } }>;
}

/** Tokens of one wire message per item 2 above. */
function wireMessageTokens(m: WireMessage, systemPadding: boolean): number {
  let tokens = 3 + o200kTokens(m.role);
  let content = m.content;
  if (systemPadding && typeof content === "string") content = `${content}\n`;
  if (typeof content === "string") tokens += o200kTokens(content);
  else if (Array.isArray(content)) for (const part of content) if (typeof part.text === "string") tokens += o200kTokens(part.text);
  if (m.name) tokens += o200kTokens(m.name) + 1;
  if (m.tool_call_id) tokens += o200kTokens(m.tool_call_id);
  for (const call of m.tool_calls ?? []) tokens += o200kTokens(call.function.name) + o200kTokens(call.function.arguments) + 3;
  return tokens;
}

/** The `function` parts of LangChain tools, as `ChatOpenAI` sends them. */
export function openAIFunctions(tools: readonly unknown[]): Array<{ name: string; description?: string; parameters: unknown }> {
  return tools.map((t) => convertToOpenAITool(t as Parameters<typeof convertToOpenAITool>[0]).function as never);
}

/** Provider-style tokens of a whole request: `messages` as the model receives them (system first), and `tools`. */
export function referenceRequestTokens(messages: readonly BaseMessage[], tools: readonly unknown[] = []): number {
  const wire = convertMessagesToCompletionsMessageParams({ messages: [...messages], model: "gpt-4o" }) as unknown as WireMessage[];
  const withTools = tools.length > 0;
  let padded = false;
  let total = 3;
  for (const m of wire) {
    const pad = withTools && !padded && m.role === "system";
    if (pad) padded = true;
    total += wireMessageTokens(m, pad);
  }
  if (withTools) {
    total += o200kTokens(formatFunctionDefinitions(openAIFunctions(tools) as never)) + 9;
    if (wire.some((m) => m.role === "system")) total -= 4;
  }
  return total;
}

/** Provider-style tokens of the tools part alone (rendering plus 9), for a per-part breakdown. */
export function referenceToolTokens(tools: readonly unknown[]): number {
  return tools.length === 0 ? 0 : o200kTokens(formatFunctionDefinitions(openAIFunctions(tools) as never)) + 9;
}
