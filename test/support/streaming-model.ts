/**
 * A fake chat model that streams as OpenAI's and Anthropic's integrations do: through
 * `_streamResponseChunks`, an answer's text in pieces, then each tool call as `tool_call_chunks`:
 * the first chunk of a call carries its `index`, `id` and `name` with empty `args`, the later ones
 * only `index` and a piece of the arguments' JSON, the pieces of parallel calls interleaved by
 * index (call 0's piece, call 1's piece, ...). LangChain streams it when a handler prefers
 * streaming (`streamMode: "messages"`, `streamEvents`) and stores the chunks' concatenation (an
 * `AIMessageChunk`); otherwise `_generate` answers with the whole `AIMessage`. Every request is
 * checked by a {@link ProviderLog} (all four providers, no prefill), refused ones fail the call
 * (or are recorded only, `strict: false`). Used by test/stack.streaming-tool-calls.test.ts.
 */
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import { messageText } from "@threadwise/core";
import { PROVIDERS, ProviderLog } from "@threadwise/core/testing";

/** What the model answers: text, or calls (`args` objects; ids given). */
export type StreamedAnswer = string | { content?: string; calls: Array<{ id: string; name: string; args: Record<string, unknown> }> };

interface Shared {
  calls: Array<{ messages: BaseMessage[] }>;
  /** Model calls answered by `_streamResponseChunks` (the rest by `_generate`). */
  streamed: number;
  log: ProviderLog;
  answer: (messages: BaseMessage[], call: number) => StreamedAnswer;
}

/** Pieces of `text` of at most `size` UTF-16 units (a surrogate pair is never split). */
export function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  let at = 0;
  while (at < text.length) {
    let end = Math.min(text.length, at + size);
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end += 1;
    out.push(text.slice(at, end));
    at = end;
  }
  return out;
}

/** The chunks an answer streams as: text pieces, each call's head, then the calls' argument pieces interleaved by index. */
export function answerChunks(answer: StreamedAnswer, pieceSize = 3): AIMessageChunk[] {
  const content = typeof answer === "string" ? answer : (answer.content ?? "");
  const calls = typeof answer === "string" ? [] : answer.calls;
  const chunks: AIMessageChunk[] = pieces(content, pieceSize + 2).map((text) => new AIMessageChunk({ content: text }));
  for (const [index, call] of calls.entries())
    chunks.push(
      new AIMessageChunk({ content: "", tool_call_chunks: [{ index, id: call.id, name: call.name, args: "", type: "tool_call_chunk" }] }),
    );
  const argPieces = calls.map((call) => pieces(JSON.stringify(call.args), pieceSize));
  const rounds = Math.max(0, ...argPieces.map((p) => p.length));
  for (let round = 0; round < rounds; round += 1)
    argPieces.forEach((p, index) => {
      const args = p[round];
      if (args !== undefined)
        chunks.push(new AIMessageChunk({ content: "", tool_call_chunks: [{ index, args, type: "tool_call_chunk" }] }));
    });
  chunks.push(
    new AIMessageChunk({
      content: "",
      response_metadata: { finish_reason: calls.length > 0 ? "tool_calls" : "stop" },
      usage_metadata: { input_tokens: 10, output_tokens: chunks.length, total_tokens: 10 + chunks.length },
    }),
  );
  return chunks;
}

/** The whole message of an answer, as a model that does not stream returns it. */
export function answerMessage(answer: StreamedAnswer): AIMessage {
  if (typeof answer === "string") return new AIMessage(answer);
  return new AIMessage({
    content: answer.content ?? "",
    tool_calls: answer.calls.map((call) => ({ ...call, type: "tool_call" as const })),
  });
}

export class StreamingToolCallModel extends BaseChatModel {
  private readonly shared: Shared;

  constructor(shared: Shared) {
    super({});
    this.shared = shared;
  }

  /** Every request received (system message first), by either path. */
  get calls() {
    return this.shared.calls;
  }
  get streamed() {
    return this.shared.streamed;
  }
  get providerLog() {
    return this.shared.log;
  }

  _llmType() {
    return "threadwise-streaming-fake";
  }

  override bindTools(_tools: unknown[]) {
    return new StreamingToolCallModel(this.shared).withConfig({}) as never;
  }

  private answerFor(messages: BaseMessage[]): StreamedAnswer {
    const call = this.shared.calls.length;
    this.shared.calls.push({ messages: [...messages] });
    this.shared.log.check(messages);
    return this.shared.answer(messages, call);
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const message = answerMessage(this.answerFor(messages));
    return { generations: [{ text: messageText(message), message }] };
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    _options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const chunks = answerChunks(this.answerFor(messages));
    this.shared.streamed += 1;
    for (const message of chunks) {
      const chunk = new ChatGenerationChunk({ text: messageText(message), message });
      yield chunk;
      await runManager?.handleLLMNewToken(chunk.text, undefined, undefined, undefined, undefined, { chunk });
    }
  }
}

/**
 * A {@link StreamingToolCallModel} answering with `answer(messages, call)`. `strict` (default):
 * a request any of the four providers refuses (no prefill) fails the call; `false`: recorded only.
 */
export function streamingModel(answer: Shared["answer"], options: { strict?: boolean } = {}): StreamingToolCallModel {
  const log = new ProviderLog({ providers: PROVIDERS, noPrefill: true, onViolation: options.strict === false ? "record" : "throw" });
  return new StreamingToolCallModel({ calls: [], streamed: 0, log, answer });
}
