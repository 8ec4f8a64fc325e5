/**
 * An offline stand-in for the OpenAI and Anthropic HTTP APIs, so that code using a model string
 * (`"openai:gpt-4o-mini"`, `"anthropic:claude-sonnet-4-5"`) or `new ChatOpenAI(...)` runs
 * unchanged: point `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL` at it (the SDKs read both). It answers
 * every chat request with one fixed text, or the text a function computes from the request, and
 * counts the requests per API. A Chat Completions request with `stream: true` (what
 * `streamMode: "messages"` makes LangChain send) is answered with server-sent events, one chunk
 * per word, as OpenAI streams; other streaming requests get a 404 naming them.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A running fake provider: its base URLs, the requests it answered, and `close()`. */
export interface FakeProviderServer {
  /** For `OPENAI_BASE_URL` (ends in `/v1`). */
  openaiBaseUrl: string;
  /** For `ANTHROPIC_BASE_URL` (the SDK appends `/v1/messages`). */
  anthropicBaseUrl: string;
  /** Requests answered so far, per path (`/v1/chat/completions`, `/v1/responses`, `/v1/messages`). */
  requests: Map<string, number>;
  /** Every request body answered, in order, with its path: what each model call sent. */
  recorded: { path: string; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

/** What the server answers: one text for every request, or a text computed from each request. */
export type FakeProviderAnswer = string | ((request: { path: string; body: Record<string, unknown> }) => string);

async function body(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

/**
 * One answer in the provider's shape. Ids are unique per answer, as a provider's are: LangChain
 * takes the message id from them, and LangGraph's messages reducer replaces a stored message with
 * the same id, so a fixed id made every second answer of a thread overwrite the first (a forked
 * turn showed 3 messages, not 4, with no answer to its question).
 */
function answer(path: string, model: string, text: string, n: number): unknown {
  const created = 1_767_225_600;
  if (path.endsWith("/chat/completions")) {
    return {
      id: `chatcmpl-fake-${n}`,
      object: "chat.completion",
      created,
      model,
      choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    };
  }
  if (path.endsWith("/responses")) {
    return {
      id: `resp_fake_${n}`,
      object: "response",
      created_at: created,
      status: "completed",
      model,
      output: [
        {
          type: "message",
          id: `msg_fake_${n}`,
          status: "completed",
          role: "assistant",
          content: [{ type: "output_text", text, annotations: [] }],
        },
      ],
      usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
    };
  }
  if (path.endsWith("/messages")) {
    return {
      id: `msg_fake_${n}`,
      type: "message",
      role: "assistant",
      model,
      content: [{ type: "text", text }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    };
  }
  return undefined;
}

/**
 * A Chat Completions answer as OpenAI streams it: server-sent events of `chat.completion.chunk`s,
 * the first with the role, one per word of `text` (a word and the space after it), a last one with
 * `finish_reason: "stop"`, then `[DONE]`.
 */
function streamedChatCompletion(model: string, text: string, n: number): string {
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    `data: ${JSON.stringify({ id: `chatcmpl-fake-${n}`, object: "chat.completion.chunk", created: 1_767_225_600, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const words = text.match(/\S+\s*/g) ?? [text];
  return [
    chunk({ role: "assistant", content: "" }, null),
    ...words.map((word) => chunk({ content: word }, null)),
    chunk({}, "stop"),
    "data: [DONE]\n\n",
  ].join("");
}

/**
 * Starts the server on 127.0.0.1 and a free port.
 * @param text - what every answer says, or a function of the request's path and body giving it.
 */
export async function startFakeProviderServer(text: FakeProviderAnswer = "Noted."): Promise<FakeProviderServer> {
  const requests = new Map<string, number>();
  const recorded: FakeProviderServer["recorded"] = [];
  let answered = 0;
  const server: Server = createServer((request, response) => {
    void (async () => {
      const path = (request.url ?? "").split("?")[0] ?? "";
      const parsed = await body(request);
      const model = String(parsed.model ?? "fake");
      const said = typeof text === "function" ? text({ path, body: parsed }) : text;
      const streamed = parsed.stream === true && path.endsWith("/chat/completions");
      const reply = parsed.stream ? undefined : answer(path, model, said, answered + 1);
      if (reply === undefined && !streamed) {
        response.writeHead(404, { "content-type": "application/json" });
        response.end(JSON.stringify({ error: { message: `fake provider: no answer for ${path}${parsed.stream ? " (streaming)" : ""}` } }));
        return;
      }
      answered += 1;
      requests.set(path, (requests.get(path) ?? 0) + 1);
      recorded.push({ path, body: parsed });
      if (streamed) {
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.end(streamedChatCompletion(model, said, answered));
        return;
      }
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(reply));
    })();
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return {
    openaiBaseUrl: `http://127.0.0.1:${port}/v1`,
    anthropicBaseUrl: `http://127.0.0.1:${port}`,
    requests,
    recorded,
    close: () => new Promise((done) => server.close(() => done())),
  };
}
