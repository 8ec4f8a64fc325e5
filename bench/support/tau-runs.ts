/**
 * Reading a tau-bench runs file given as a benchmark's `--data` (airline, retail or any other
 * domain): tau-bench's results format, a JSON array of `{ task_id, trial, reward?, traj }` where
 * `traj` holds OpenAI chat messages (`system`, `user`, `assistant` with `tool_calls`, `tool`).
 * Checked whole before a benchmark replays it, so a file of another kind or a broken run stops the
 * run with one line naming the file and the entry (`[3].traj[5].tool_calls[0].function.arguments`)
 * instead of a `TypeError` or a `SyntaxError` deep in the replay.
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
  content: z.string().nullable().optional(),
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
 * Loads and checks every run of a tau-bench runs file: each message has a known role, each tool
 * call a name and arguments that are a JSON object (`""` reads as `{}`, as OpenAI sends it).
 *
 * @param path - the `--data` file
 * @returns the runs, `reward` 0 where the file has none
 * @throws BenchDataError naming the file and the first entry that does not fit (`(file)` for an
 *   empty array or a file that is not JSON, `[0].traj` for a LoCoMo sample, `[3].task_id` for a
 *   run whose task_id and trial an earlier run has)
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
  return runs.map((run) => ({ ...run, reward: run.reward ?? 0 })) as RecordedRun[];
}
