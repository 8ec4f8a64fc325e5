/**
 * Reading a tau-bench runs file given as a benchmark's `--data` (airline, retail or any other
 * domain): tau-bench's results format, a JSON array of `{ task_id, trial, reward?, traj }` where
 * `traj` holds OpenAI chat messages (`system`, `user`, `assistant` with `tool_calls`, `tool`).
 * Checked whole before a benchmark replays it, so a file of another kind or a broken run stops the
 * run with one line naming the file and the entry (`[3].traj[5].tool_calls[0].function.arguments`)
 * instead of a `TypeError` or a `SyntaxError` deep in the replay.
 *
 * A message's `content` may be a string, `null`, or an array of content parts, as OpenAI-format and
 * Anthropic-format exports write it; parts are read into the string-and-`tool_calls` form the
 * replays use ({@link TAU_CONTENT_PARTS}).
 */
import { z } from "zod/v4";
import type { RecordedRun } from "../../examples/support/tau-replay.js";
import { BenchDataError, readDataFile } from "./data-file.js";

/** The kind named in a refusal. */
export const TAU_RUNS_KIND = "tau-bench runs file";

const toolCallShape = z.looseObject({
  id: z.string(),
  function: z.looseObject({ name: z.string().min(1), arguments: z.string() }),
});

const messageShape = z.looseObject({
  role: z.enum(["system", "user", "assistant", "tool"]),
  // A string, null or content parts: checked part by part by `readContent`.
  content: z.unknown().optional(),
  tool_calls: z.array(toolCallShape).optional(),
  tool_call_id: z.string().optional(),
  name: z.string().optional(),
});

/** `traj` first: a file of another kind (a LoCoMo sample) is named by its missing trajectory. */
const runsShape = z
  .array(
    z.looseObject({
      traj: z.array(messageShape).min(1),
      task_id: z.number(),
      trial: z.number(),
      reward: z.number().optional(),
    }),
  )
  .min(1, "no run: expected an array of tau-bench runs");

/**
 * How a message's content parts are read (OpenAI chat-completions parts and Anthropic message
 * blocks), each into what a model is sent for it:
 *
 * - `text` (`{ type: "text", text }`) and an assistant's `refusal` (`{ type: "refusal", refusal }`):
 *   their text, the texts of a message joined with `""` as LangChain's `BaseMessage.text` reads them;
 * - `image_url` / `image` / `input_image`, `input_audio` / `audio`, `file` / `input_file` /
 *   `document`: a placeholder, `[image]`, `[audio]`, `[file]` (the replays send text only; a LoCoMo
 *   image turn reads `[image: <caption>]` the same way);
 * - an assistant's `tool_use` (`{ type: "tool_use", id, name, input }`): a tool call, after the
 *   message's own `tool_calls`, its arguments `input` as JSON;
 * - a user's `tool_result` (`{ type: "tool_result", tool_use_id, content }`, the content a string or
 *   text and media parts): a `tool` message answering that call, placed before the rest of the user
 *   message (a user message of tool results only adds no user turn);
 * - an assistant's `thinking` / `redacted_thinking`: left out (a model is not sent its earlier
 *   turns' thinking).
 *
 * Anything else (a part that is not an object, another type, a `tool_use` outside an assistant
 * message, a `tool_use` without a name or whose input is not an object) is refused naming the part's
 * field: `[0].traj[2].content[1].input`.
 */
export const TAU_CONTENT_PARTS = [
  "text",
  "refusal",
  "image_url",
  "image",
  "input_image",
  "input_audio",
  "audio",
  "file",
  "input_file",
  "document",
  "tool_use",
  "tool_result",
  "thinking",
  "redacted_thinking",
] as const;

const PLACEHOLDERS: Readonly<Record<string, string>> = {
  image_url: "[image]",
  image: "[image]",
  input_image: "[image]",
  input_audio: "[audio]",
  audio: "[audio]",
  file: "[file]",
  input_file: "[file]",
  document: "[file]",
};

type Message = RecordedRun["traj"][number];
type ToolCall = NonNullable<Message["tool_calls"]>[number];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** What a message's content gives: its text, the tool calls of `tool_use` parts and the tool messages of `tool_result` parts. */
interface ReadContent {
  text: string;
  calls: ToolCall[];
  results: Message[];
}

/**
 * Reads one message's `content` ({@link TAU_CONTENT_PARTS}); `field` is the content's path in the
 * file (`[0].traj[2].content`), for the refusal.
 *
 * @throws BenchDataError naming the first part field that does not fit
 */
function readContent(
  content: unknown,
  role: Message["role"],
  path: string,
  field: string,
  callNames: ReadonlyMap<string, string>,
): ReadContent {
  const fail = (at: string, problem: string) => new BenchDataError(path, TAU_RUNS_KIND, at, problem);
  if (content === undefined || content === null) return { text: "", calls: [], results: [] };
  if (typeof content === "string") return { text: content, calls: [], results: [] };
  if (!Array.isArray(content)) throw fail(field, `expected a string, null or an array of content parts, received ${typeof content}`);
  const read: ReadContent = { text: "", calls: [], results: [] };
  content.forEach((part, p) => {
    const at = `${field}[${p}]`;
    if (!isObject(part)) throw fail(at, `expected a content part object, received ${Array.isArray(part) ? "array" : typeof part}`);
    const type = part.type;
    if (type === "text" || type === "refusal") {
      const text = part[type];
      if (typeof text !== "string") throw fail(`${at}.${type}`, `expected a string in a ${type} part`);
      read.text += text;
    } else if (typeof type === "string" && PLACEHOLDERS[type] !== undefined) read.text += PLACEHOLDERS[type];
    else if (type === "thinking" || type === "redacted_thinking") {
      if (role !== "assistant") throw fail(`${at}.type`, `a ${type} part in a ${role} message: only an assistant's turns hold thinking`);
    } else if (type === "tool_use") {
      if (role !== "assistant") throw fail(`${at}.type`, `a tool_use part in a ${role} message: only an assistant calls tools`);
      if (typeof part.id !== "string" || part.id === "") throw fail(`${at}.id`, "expected the tool call's id, a non-empty string");
      if (typeof part.name !== "string" || part.name === "") throw fail(`${at}.name`, "expected the tool's name, a non-empty string");
      if (!isObject(part.input)) throw fail(`${at}.input`, "expected the call's arguments, a JSON object");
      read.calls.push({ id: part.id, type: "function", function: { name: part.name, arguments: JSON.stringify(part.input) } });
    } else if (type === "tool_result") {
      if (role !== "user") throw fail(`${at}.type`, `a tool_result part in a ${role} message: tool results come in a user message`);
      if (typeof part.tool_use_id !== "string" || part.tool_use_id === "")
        throw fail(`${at}.tool_use_id`, "expected the id of the tool call it answers, a non-empty string");
      // The replays name a result by its call's tool: a result of no earlier call would be `unknown`'s.
      const name = callNames.get(part.tool_use_id);
      if (name === undefined)
        throw fail(`${at}.tool_use_id`, `${JSON.stringify(part.tool_use_id)} is the id of no earlier tool call of the run`);
      const inner = readContent(part.content, "tool", path, `${at}.content`, callNames);
      read.results.push({ role: "tool", content: inner.text, tool_call_id: part.tool_use_id, name });
    } else
      throw fail(
        `${at}.type`,
        `${typeof type === "string" ? `unknown content part type ${JSON.stringify(type)}` : "no content part type"} (expected one of ${TAU_CONTENT_PARTS.join(", ")})`,
      );
  });
  return read;
}

/**
 * One message of the file in the replays' form: content a string (or `null`), an assistant's
 * `tool_use` parts after its `tool_calls`, a user's `tool_result` parts as `tool` messages (named
 * by their call's tool) before it. `callNames` holds the tool name of each call id of the run so
 * far; the message's calls are added to it.
 */
function normalizeMessage(message: z.infer<typeof messageShape>, path: string, field: string, callNames: Map<string, string>): Message[] {
  const { content, ...rest } = message;
  for (const call of message.tool_calls ?? []) callNames.set(call.id, call.function.name);
  // A string (or no content) is kept as the file holds it.
  if (content === undefined || content === null || typeof content === "string") return [message as Message];
  const read = readContent(content, message.role, path, `${field}.content`, callNames);
  for (const call of read.calls) callNames.set(call.id, call.function.name);
  const calls = [...(message.tool_calls ?? []), ...read.calls];
  const own = { ...rest, content: read.text, ...(calls.length > 0 ? { tool_calls: calls } : {}) } as Message;
  // A user message that only carries tool results is no user turn.
  if (message.role === "user" && read.results.length > 0 && read.text === "") return read.results;
  return [...read.results, own];
}

/**
 * Loads and checks every run of a tau-bench runs file: each message has a known role and a
 * content that is a string, `null` or content parts ({@link TAU_CONTENT_PARTS}), each tool call a
 * name and arguments that are a JSON object (`""` reads as `{}`, as OpenAI sends it).
 *
 * @param path - the `--data` file
 * @returns the runs, `reward` 0 where the file has none, every content a string or `null`
 * @throws BenchDataError naming the file and the first entry that does not fit (`(file)` for an
 *   empty array or a file that is not JSON, `[0].traj` for a LoCoMo sample, `[3].task_id` for a
 *   run whose task_id and trial an earlier run has, `[0].traj[2].content[1].type` for a content
 *   part of an unknown type)
 */
export function loadTauRuns(path: string): RecordedRun[] {
  const runs = readDataFile(runsShape, path, TAU_RUNS_KIND);
  // A run's thread is named by its task and trial (`tau-task3-trial0`): two runs under one pair
  // would be replayed into one thread.
  const firstRun = new Map<string, number>();
  runs.forEach((run, r) => {
    run.traj.forEach((message, m) => {
      (message.tool_calls ?? []).forEach((call, c) => {
        const field = `[${r}].traj[${m}].tool_calls[${c}].function.arguments`;
        let args: unknown;
        try {
          args = JSON.parse(call.function.arguments || "{}");
        } catch (error) {
          throw new BenchDataError(path, TAU_RUNS_KIND, field, `not JSON (${(error as Error).message})`);
        }
        if (args === null || typeof args !== "object" || Array.isArray(args))
          throw new BenchDataError(path, TAU_RUNS_KIND, field, "not a JSON object");
      });
    });
    const key = `${run.task_id}/${run.trial}`;
    const first = firstRun.get(key);
    if (first !== undefined)
      throw new BenchDataError(
        path,
        TAU_RUNS_KIND,
        `[${r}].task_id`,
        `task_id ${run.task_id} with trial ${run.trial} is also run [${first}]'s: the two would share one replayed thread`,
      );
    firstRun.set(key, r);
  });
  // Content parts are read after the checks above, whose fields index the messages as the file holds them.
  return runs.map((run, r) => {
    const callNames = new Map<string, string>();
    return {
      ...run,
      reward: run.reward ?? 0,
      traj: run.traj.flatMap((message, m) => normalizeMessage(message, path, `[${r}].traj[${m}]`, callNames)),
    };
  }) as RecordedRun[];
}
