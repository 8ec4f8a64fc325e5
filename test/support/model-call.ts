/**
 * One model call's `wrapModelCall` chain, run without a graph the way langchain's `AgentNode`
 * runs it (`node_modules/langchain/dist/agents/nodes/AgentNode.js`, `#invokeModel`): the first
 * middleware is outermost; between layers a changed `systemMessage` (or `systemPrompt`) becomes
 * the current system message; a layer's `Command` is collected, and an outer layer whose inner
 * handler returned a `Command` sees the newest `AIMessage` instead. For tests that compute a model
 * call from a given stored state (messages and private channels) with fresh middleware instances.
 */
import { AIMessage, type BaseMessage, SystemMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import type { AgentMiddleware } from "langchain";

/** The request the innermost handler receives. */
export interface ModelCallRequest {
  model: unknown;
  messages: BaseMessage[];
  systemMessage: SystemMessage;
  systemPrompt: string;
  tools: unknown[];
  state: Record<string, unknown>;
  runtime: unknown;
  [key: string]: unknown;
}

/** What the call starts from: the stored state as the model node reads it, and the agent's inputs. */
export interface ModelCallInput {
  /** The stored thread (`state.messages`). */
  messages: BaseMessage[];
  /** Other channels of the state (private slots such as `_threadwise_summary`). */
  channels: Record<string, unknown>;
  /** The agent's system message (`createAgent({ systemPrompt })`). */
  systemMessage: SystemMessage;
  tools: unknown[];
  /** `runtime.context` and `runtime.configurable` (`thread_id`, ...). */
  context?: unknown;
  configurable: Record<string, unknown>;
  model?: unknown;
}

/** What the chain returned: the outermost response and the `Command`s the layers returned, inner first. */
export interface ModelCallResult {
  response: unknown;
  commands: Command[];
}

type Handler = (request: ModelCallRequest) => Promise<unknown>;
type Wrap = (request: ModelCallRequest, handler: Handler) => Promise<unknown>;

/**
 * Runs the `wrapModelCall` hooks of `middleware` around `base` (the model), as `createAgent`'s
 * model node does. Only `wrapModelCall` runs: `beforeModel`/`afterModel` hooks are the caller's.
 */
export async function runModelCall(
  middleware: readonly AgentMiddleware[],
  input: ModelCallInput,
  base: (request: ModelCallRequest) => Promise<AIMessage>,
): Promise<ModelCallResult> {
  const runtime = Object.freeze({ context: input.context, configurable: input.configurable });
  const state = { ...input.channels, messages: input.messages };
  let current = input.systemMessage;
  let lastAi: AIMessage | undefined;
  const commands: Command[] = [];
  let handler: Handler = async (request) => {
    lastAi = await base(request);
    return lastAi;
  };
  for (let i = middleware.length - 1; i >= 0; i -= 1) {
    const wrap = (middleware[i] as { wrapModelCall?: Wrap }).wrapModelCall;
    if (!wrap) continue;
    const inner = handler;
    handler = async (request) => {
      const baseline = current;
      const normalized: Handler = async (req) => {
        current = baseline;
        let next = req;
        if (req.systemPrompt !== current.text && req.systemMessage === current) {
          current = new SystemMessage({ content: [{ type: "text", text: req.systemPrompt }] });
          next = { ...req, systemPrompt: current.text, systemMessage: current };
        } else if (req.systemMessage !== current) {
          current = new SystemMessage({ ...req.systemMessage });
          next = { ...req, systemPrompt: current.text, systemMessage: current };
        }
        const out = await inner(next);
        if (out instanceof Command && lastAi) {
          if (!commands.includes(out)) commands.push(out);
          return lastAi;
        }
        return out;
      };
      const response = await wrap({ ...request, state: { ...state }, runtime }, normalized);
      if (AIMessage.isInstance(response)) lastAi = response;
      else if (response instanceof Command) commands.push(response);
      return response;
    };
  }
  const response = await handler({
    model: input.model ?? {},
    messages: input.messages,
    systemMessage: input.systemMessage,
    systemPrompt: input.systemMessage.text,
    tools: input.tools,
    state,
    runtime,
  });
  return { response, commands };
}
