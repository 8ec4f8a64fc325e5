/**
 * An offline stand-in for the OpenAI and Anthropic HTTP APIs, so that code using a model string
 * (`"openai:gpt-4o-mini"`, `"anthropic:claude-sonnet-4-5"`) or `new ChatOpenAI(...)` runs
 * unchanged: point `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL` at it (the SDKs read both). It answers
 * every non-streaming chat request with one fixed text and counts the requests per API.
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
  close(): Promise<void>;
}

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
 * Starts the server on 127.0.0.1 and a free port.
 * @param text - what every answer says.
 */
export async function startFakeProviderServer(text = "Noted."): Promise<FakeProviderServer> {
  const requests = new Map<string, number>();
  let answered = 0;
  const server: Server = createServer((request, response) => {
    void (async () => {
      const path = (request.url ?? "").split("?")[0] ?? "";
      const parsed = await body(request);
      const reply = parsed.stream ? undefined : answer(path, String(parsed.model ?? "fake"), text, answered + 1);
      if (reply === undefined) {
        response.writeHead(404, { "content-type": "application/json" });
        response.end(JSON.stringify({ error: { message: `fake provider: no answer for ${path}${parsed.stream ? " (streaming)" : ""}` } }));
        return;
      }
      answered += 1;
      requests.set(path, (requests.get(path) ?? 0) + 1);
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
    close: () => new Promise((done) => server.close(() => done())),
  };
}
