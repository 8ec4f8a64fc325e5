/**
 * An A2A agent server whose memory is keyed by the A2A `contextId` (spec R1, R19), on the official
 * `@a2a-js/sdk` (protocol 1.0, with the 0.3 compatibility layer on, so `message/send` works).
 *
 *   pnpm tsx examples/a2a-server.ts            # serves on http://127.0.0.1:41241 (env PORT), prints a
 *                                              # curl line to talk to it; Ctrl+C stops it
 *   EXAMPLE_ONESHOT=1 pnpm tsx examples/a2a-server.ts   # starts, talks to itself, prints, exits
 *
 * Offline by default: a scripted model answers with how many earlier messages it saw, so the
 * memory is visible on the wire. With `OPENAI_API_KEY` (and optionally `OPENAI_BASE_URL`,
 * `OPENAI_MODEL`) a live OpenAI-compatible model answers instead.
 *
 * Memory stack: `historySeed` (an empty thread takes the caller's `metadata.history`),
 * `windowTrim` (only the newest messages go to the model) and a checkpointer (the thread store).
 * A `message/send` with `message.contextId` continues that thread; without one the server makes a
 * new contextId, so the call is a fresh conversation, and returns it in the reply.
 *
 * Outside history travels in `params.metadata.history` (or `message.metadata.history`) as A2A
 * messages: `[{ role: "user" | "agent", parts: [{ kind: "text", text }] }]`. It is used only on the
 * first call of a context; invalid history is answered with a failed task whose status message
 * names the broken rule (the SDK's answer to an executor error), and nothing is stored.
 */
import { randomUUID } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { AGENT_CARD_PATH, type AgentCard, Role } from "@a2a-js/sdk";
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryTaskStore,
  type RequestContext,
} from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { type BaseCheckpointSaver, MemorySaver } from "@langchain/langgraph";
import { scriptedModel } from "@threadwise/core/testing";
import { historySeed } from "@threadwise/history-seed";
import { windowTrim } from "@threadwise/window-trim";
import express from "express";
import { createAgent } from "langchain";

/** Options of {@link startA2aServer}. */
export interface A2aServerOptions {
  /** TCP port; `0` picks a free one. @default env PORT, else 41241 */
  port?: number;
  /** Interface to listen on. @default "127.0.0.1" */
  host?: string;
  /** Chat model of the agent. @default {@link offlineModel} */
  model?: BaseChatModel;
  /** Thread store. @default a new `MemorySaver` */
  checkpointer?: BaseCheckpointSaver;
  /** Window of `windowTrim`, in messages. @default env MEMORY_WINDOW_SIZE, else 20 */
  windowMessages?: number;
  /** Newest outside messages seeded, in messages. @default env A2A_HISTORY_MAX_MESSAGES, else 50 */
  seedMaxMessages?: number;
}

/** A running server. */
export interface A2aServer {
  /** Base URL, e.g. `http://127.0.0.1:41241`; JSON-RPC is POSTed to it. */
  url: string;
  port: number;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

/**
 * The offline model: answers `I see <n> earlier messages. Latest: "<text>"`, where n counts the
 * non-system messages it received before the newest user message, so a test (or you) can see
 * what memory reached the model.
 */
export function offlineModel(): BaseChatModel {
  return scriptedModel((messages: BaseMessage[]) => {
    const turns = messages.filter((m) => m.getType() !== "system");
    const latest = turns.at(-1)?.text ?? "";
    return `I see ${turns.length - 1} earlier messages. Latest: "${latest}"`;
  });
}

async function liveModel(): Promise<BaseChatModel | undefined> {
  if (!process.env.OPENAI_API_KEY) return undefined;
  const { ChatOpenAI } = await import("@langchain/openai");
  return new ChatOpenAI({
    model: process.env.OPENAI_MODEL ?? "gpt-4o-mini",
    configuration: process.env.OPENAI_BASE_URL ? { baseURL: process.env.OPENAI_BASE_URL } : undefined,
  });
}

function agentCard(url: string): AgentCard {
  return {
    name: "threadwise memory agent",
    description: "A LangChain agent whose conversation memory is keyed by the A2A contextId.",
    supportedInterfaces: [
      { url, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" },
      { url, protocolBinding: "JSONRPC", protocolVersion: "0.3", tenant: "" },
    ],
    provider: undefined,
    version: "0.1.0",
    capabilities: { streaming: false, pushNotifications: false, extensions: [], extendedAgentCard: false } as never,
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [
      {
        id: "chat",
        name: "Chat",
        description: "Multi-turn conversation",
        tags: ["chat"],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

function textOf(context: RequestContext): string {
  return context.userMessage.parts
    .map((part) => (part.content?.$case === "text" ? part.content.value : ""))
    .filter((text) => text !== "")
    .join("\n");
}

/** Runs one `message/send` through the agent: contextId -> thread_id, metadata.history -> seed. */
function memoryExecutor(agent: { invoke: (input: never, config: never) => Promise<{ messages: BaseMessage[] }> }): AgentExecutor {
  return {
    async execute(context: RequestContext, bus: ExecutionEventBus) {
      // The SDK fills contextId with the message's, else the task's, else a new UUID: a new UUID is a fresh thread.
      const threadId = context.contextId;
      const seedHistory = context.request.metadata?.history ?? context.userMessage.metadata?.history;
      // Invalid outside history throws HistorySeedError here; the SDK answers it with a failed task whose message names the rule.
      const result = await agent.invoke(
        { messages: [new HumanMessage(textOf(context))] } as never,
        {
          configurable: { thread_id: threadId },
          context: { seedHistory },
        } as never,
      );
      const answer = result.messages.at(-1)?.text ?? "";
      bus.publish(
        AgentEvent.message({
          messageId: randomUUID(),
          contextId: threadId,
          taskId: "",
          role: Role.ROLE_AGENT,
          parts: [{ content: { $case: "text", value: answer }, metadata: undefined, filename: "", mediaType: "text/plain" }],
          metadata: undefined,
          extensions: [],
          referenceTaskIds: [],
        }),
      );
      bus.finished();
    },
    async cancelTask() {},
  };
}

/**
 * Starts the A2A server: JSON-RPC (`message/send` of A2A 0.3, `SendMessage` of 1.0) at the root
 * URL, backed by `createAgent` with `historySeed`, `windowTrim` and a checkpointer.
 *
 * @example
 * const server = await startA2aServer({ port: 0 });
 * await fetch(server.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({
 *   jsonrpc: "2.0", id: 1, method: "message/send",
 *   params: { message: { kind: "message", messageId: "m1", role: "user", contextId: "trip-1", parts: [{ kind: "text", text: "hi" }] } },
 * }) });
 * await server.close();
 */
export async function startA2aServer(options: A2aServerOptions = {}): Promise<A2aServer> {
  const model = options.model ?? (await liveModel()) ?? offlineModel();
  const agent = createAgent({
    model,
    systemPrompt: "You are a helpful assistant. Answer briefly.",
    checkpointer: options.checkpointer ?? new MemorySaver(),
    middleware: [historySeed({ maxMessages: options.seedMaxMessages }), windowTrim({ maxMessages: options.windowMessages })],
  });
  const app = express();
  const host = options.host ?? "127.0.0.1";
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(options.port ?? Number(process.env.PORT ?? 41241), host, () => resolve(s));
    s.once("error", reject);
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host}:${port}`;
  // Routes are mounted once the port is known, so the agent card names the real URL.
  const handler = new DefaultRequestHandler(agentCard(`${url}/`), new InMemoryTaskStore(), memoryExecutor(agent as never));
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler, legacyCompat: { enabled: true } }));
  app.use("/", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
  return {
    url,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** Sends one A2A 0.3 `message/send` and returns the JSON-RPC response body. */
export async function sendMessage(
  url: string,
  text: string,
  extra: { contextId?: string; history?: unknown[] } = {},
): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: randomUUID(),
      method: "message/send",
      params: {
        message: {
          kind: "message",
          messageId: randomUUID(),
          role: "user",
          parts: [{ kind: "text", text }],
          ...(extra.contextId ? { contextId: extra.contextId } : {}),
        },
        ...(extra.history ? { metadata: { history: extra.history } } : {}),
      },
    }),
  });
  return (await response.json()) as Record<string, unknown>;
}

async function main(): Promise<void> {
  const oneShot = process.env.EXAMPLE_ONESHOT === "1";
  const server = await startA2aServer({ port: oneShot ? 0 : undefined });
  console.log(`A2A server on ${server.url} (${process.env.OPENAI_API_KEY ? "live model" : "offline scripted model"})`);
  if (!oneShot) {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "message/send",
      params: {
        message: { kind: "message", messageId: "m1", role: "user", parts: [{ kind: "text", text: "My name is Mina." }], contextId: "trip" },
      },
    });
    console.log("Talk to it (send again with the same contextId and the answer counts the earlier messages):");
    console.log(`  curl -s ${server.url} -H 'content-type: application/json' -d '${body}'`);
    console.log(`Agent card: curl -s ${server.url}/${AGENT_CARD_PATH}`);
    console.log("Stop it with Ctrl+C.");
    const stop = () => {
      void server.close().then(() => process.exit(0));
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    return;
  }
  const say = (r: Record<string, unknown>) => {
    const result = r.result as { contextId?: string; parts?: Array<{ text?: string }> } | undefined;
    return result ? `[${result.contextId}] ${result.parts?.[0]?.text}` : `error ${JSON.stringify(r.error)}`;
  };
  console.log("turn 1:", say(await sendMessage(server.url, "My name is Mina.", { contextId: "demo-trip" })));
  console.log("turn 2:", say(await sendMessage(server.url, "What is my name?", { contextId: "demo-trip" })));
  console.log("other context:", say(await sendMessage(server.url, "What is my name?", { contextId: "demo-other" })));
  console.log("no contextId:", say(await sendMessage(server.url, "Hello")));
  const history = [
    { role: "user", parts: [{ kind: "text", text: "I fly to Busan on Friday." }] },
    { role: "agent", parts: [{ kind: "text", text: "Noted: Busan, Friday." }] },
  ];
  console.log("seeded:", say(await sendMessage(server.url, "When do I fly?", { contextId: "demo-seeded", history })));
  await server.close();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
