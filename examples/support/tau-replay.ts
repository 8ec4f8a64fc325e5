/**
 * Replay of recorded tau-bench airline runs (OpenAI chat format) through `createAgent`: the
 * recorded user turns become user messages, a replay model answers with the recorded assistant
 * messages and tool calls, and tools built from the recorded calls return the recorded results.
 * Used by `examples/demo.ts` and its test; nothing here ships in a package.
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import type { RecordedAssistantTurn } from "@threadwise/core/testing";
import { tool } from "langchain";
import { z } from "zod/v4";
import { loadTauRuns } from "../../bench/support/tau-runs.js";

/** The committed slice of the airline runs (MIT, see `examples/data/tau-bench-airline/SOURCE.txt`). */
export const AIRLINE_SLICE_PATH = resolve(dirname(fileURLToPath(import.meta.url)), "../data/tau-bench-airline/airline-slice.json");

/** One message of a recorded run, as OpenAI's chat-completions API returned or received it. */
export interface RecordedMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | null;
  tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
  name?: string;
}

/** One run of the airline file: a task, a trial, and its trajectory. */
export interface RecordedRun {
  task_id: number;
  trial: number;
  reward: number;
  traj: RecordedMessage[];
}

/** One replayed user turn: what the user said and the assistant steps that answered it. */
export interface ReplayTurn {
  user: string;
  /** Assistant messages of the turn, in order; every one but the last has tool calls. */
  assistant: RecordedAssistantTurn[];
}

/** A run cut into turns, with what its tools must return. */
export interface ReplayScript {
  /** Thread id used for the run: `tau-airline-task<task>-trial<trial>`. */
  threadId: string;
  systemPrompt: string;
  turns: ReplayTurn[];
  /** Recorded results per tool name, in call order. */
  toolResults: Map<string, string[]>;
  /** Recorded argument objects per tool name (to infer each tool's schema). */
  toolArgs: Map<string, Array<Record<string, unknown>>>;
  /** Recorded user turns left out because no assistant message answers them (e.g. `###STOP###`). */
  unansweredUserTurns: number;
  /** Tool calls whose id was already used earlier in the run (pairing must be positional). */
  repeatedToolCallIds: number;
}

/**
 * Loads recorded runs (default: the committed slice): tau-bench's results format, a JSON array of
 * `{ task_id, trial, reward, traj: [{ role, content, tool_calls?, tool_call_id? }] }`, read and
 * checked whole by the benchmarks' loader (`loadTauRuns`, bench/support/tau-runs.ts): each message
 * of a known role, each tool call's arguments a JSON object; `reward` 0 where a run has none; a
 * content given as content parts read into a string, tool calls and tool messages.
 *
 * @throws BenchDataError naming the file and the first entry that does not fit
 *   (`[1].traj[3].tool_calls[0].function.arguments`; `[0].traj` for a LoCoMo file)
 */
export function loadAirlineRuns(path = AIRLINE_SLICE_PATH): RecordedRun[] {
  return loadTauRuns(path);
}

/**
 * One run as the LangChain messages of a stored thread, ids `r<run>-<index>`: system, user, AI
 * messages (recorded `tool_calls` with their ids; `null` content as `""`) and ToolMessages.
 */
export function runMessages(run: Pick<RecordedRun, "traj">, index: number): BaseMessage[] {
  return run.traj.map((m, i) => {
    const id = `r${index}-${i}`;
    const content = m.content ?? "";
    if (m.role === "system") return new SystemMessage({ id, content });
    if (m.role === "user") return new HumanMessage({ id, content });
    if (m.role === "tool") return new ToolMessage({ id, content, tool_call_id: m.tool_call_id ?? "", name: m.name });
    return new AIMessage({
      id,
      content,
      tool_calls: (m.tool_calls ?? []).map((c) => ({
        id: c.id,
        name: c.function.name,
        args: JSON.parse(c.function.arguments || "{}") as Record<string, unknown>,
        type: "tool_call" as const,
      })),
    });
  });
}

/**
 * Cuts a run into replayable turns. A user turn with no recorded answer after it (the closing
 * `###STOP###` line of the simulated user) is counted and left out, because the replay model would
 * have nothing to say.
 */
export function replayScript(run: RecordedRun): ReplayScript {
  const turns: ReplayTurn[] = [];
  const toolResults = new Map<string, string[]>();
  const toolArgs = new Map<string, Array<Record<string, unknown>>>();
  const callNames = new Map<string, string>();
  const seenIds = new Set<string>();
  let systemPrompt = "";
  let unanswered = 0;
  let repeated = 0;
  for (const message of run.traj) {
    if (message.role === "system") systemPrompt = message.content ?? "";
    else if (message.role === "user") turns.push({ user: message.content ?? "", assistant: [] });
    else if (message.role === "assistant") {
      const turn = turns.at(-1);
      if (!turn) throw new Error(`run task ${run.task_id}: assistant message before any user message`);
      const toolCalls = (message.tool_calls ?? []).map((call) => {
        const args = JSON.parse(call.function.arguments || "{}") as Record<string, unknown>;
        if (seenIds.has(call.id)) repeated += 1;
        seenIds.add(call.id);
        callNames.set(call.id, call.function.name);
        push(toolArgs, call.function.name, args);
        return { id: call.id, name: call.function.name, args };
      });
      turn.assistant.push({ content: message.content ?? "", ...(toolCalls.length > 0 ? { toolCalls } : {}) });
    } else if (message.role === "tool") {
      const name = message.name ?? callNames.get(message.tool_call_id ?? "") ?? "unknown";
      push(toolResults, name, message.content ?? "");
    }
  }
  const answered = turns.filter((turn) => turn.assistant.length > 0);
  unanswered = turns.length - answered.length;
  for (const turn of answered) {
    if ((turn.assistant.at(-1)?.toolCalls?.length ?? 0) > 0)
      throw new Error(`run task ${run.task_id}: a turn ends on a tool call; the replay needs a final answer`);
  }
  return {
    threadId: `tau-airline-task${run.task_id}-trial${run.trial}`,
    systemPrompt,
    turns: answered,
    toolResults,
    toolArgs,
    unansweredUserTurns: unanswered,
    repeatedToolCallIds: repeated,
  };
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Zod type of one recorded argument value (the first value seen decides). */
function zodFor(value: unknown): z.ZodType {
  if (typeof value === "string") return z.string();
  if (typeof value === "number") return z.number();
  if (typeof value === "boolean") return z.boolean();
  if (Array.isArray(value)) return z.array(value.length > 0 ? zodFor(value[0]) : z.unknown());
  if (value && typeof value === "object") {
    return z.object(Object.fromEntries(Object.entries(value).map(([k, v]) => [k, zodFor(v)]))).passthrough();
  }
  return z.unknown();
}

/**
 * Tools named after the recorded calls, with a schema inferred from the recorded arguments (a key
 * missing from some call is optional). Each returns the recorded results of its name in order;
 * a live model that calls a tool more often than the recording did gets a plain notice instead.
 */
export function replayTools(script: ReplayScript) {
  const cursor = new Map<string, number>();
  return [...script.toolArgs.entries()].map(([name, calls]) => {
    return tool(
      async () => {
        const results = script.toolResults.get(name) ?? [];
        const next = cursor.get(name) ?? 0;
        cursor.set(name, next + 1);
        return results[next] ?? `No recorded result left for ${name} in this replay.`;
      },
      {
        name,
        description: `Airline tool \`${name}\`, replayed: returns the results recorded in tau-bench, in order.`,
        schema: inferredToolSchema(calls),
      },
    );
  });
}

/**
 * A tool's argument schema inferred from its recorded calls' argument objects: every key any call
 * passed, typed by its first value seen, optional when some call left it out.
 */
export function inferredToolSchema(calls: ReadonlyArray<Record<string, unknown>>): z.ZodObject {
  const keys = new Map<string, { value: unknown; count: number }>();
  for (const args of calls) {
    for (const [key, value] of Object.entries(args)) {
      const entry = keys.get(key);
      if (entry) entry.count += 1;
      else keys.set(key, { value, count: 1 });
    }
  }
  return z.object(
    Object.fromEntries(
      [...keys.entries()].map(([key, { value, count }]) => [key, count === calls.length ? zodFor(value) : zodFor(value).optional()]),
    ),
  );
}

/** Every recorded assistant step of the script, in order: the queue of a replay model. */
export function assistantSteps(script: ReplayScript): RecordedAssistantTurn[] {
  return script.turns.flatMap((turn) => turn.assistant);
}
