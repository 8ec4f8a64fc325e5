/**
 * Reading a benchmark's `--data` file: JSON checked against the shape the benchmark reads, so a
 * file of another kind (a tau-bench run given to a LoCoMo bench, a LoCoMo file given to the
 * labelled-statements bench) stops the run with one line that names the file, the kind expected
 * and the first field that does not fit, instead of a `TypeError` deep in the replay.
 */
import { readFileSync } from "node:fs";
import type { z } from "zod/v4";

/**
 * A `--data` file (or the file of another option, `option`) that is not of the kind a benchmark
 * reads. `code` is `BENCH_DATA_SHAPE`; `field` is the path of the first field that does not fit
 * (`[0].conversation.session_1[2].text`, `items[4].facts`; `(file)` for the whole file).
 */
export class BenchDataError extends Error {
  readonly code = "BENCH_DATA_SHAPE";
  readonly path: string;
  readonly field: string;
  /** The option that named the file, `--data` unless given. */
  readonly option: string;
  private readonly kind: string;
  private readonly problem: string;
  constructor(path: string, kind: string, field: string, problem: string, option = "--data") {
    super(`${option} ${path}: not a ${kind}: ${field}: ${problem.replace(/\s+/g, " ")}`);
    this.name = "BenchDataError";
    this.path = path;
    this.field = field;
    this.option = option;
    this.kind = kind;
    this.problem = problem;
  }

  /** The same refusal for a file given by another option (`token-cap`'s `--locomo`). */
  forOption(option: string): BenchDataError {
    return new BenchDataError(this.path, this.kind, this.field, this.problem, option);
  }
}

/**
 * A benchmark option whose value cannot be used with the data file or with the other options given
 * (`--conversation conv-99` on a file without it, `--samples` naming an absent id, `--gc fast`).
 * `code` is `BENCH_OPTION`; `option` is the option as typed (`--conversation`). Like a
 * {@link BenchDataError}, it ends a benchmark with its one line and exit code 2 (`support/cli.ts`),
 * not a stack trace.
 */
export class BenchOptionError extends Error {
  readonly code = "BENCH_OPTION";
  readonly option: string;
  constructor(option: string, problem: string) {
    super(`${option}: ${problem}`);
    this.name = "BenchOptionError";
    this.option = option;
  }
}

/** `[0].conversation.session_1[2].text` from a zod issue path. */
export function fieldPath(path: readonly PropertyKey[]): string {
  const text = path.map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`)).join("");
  return text === "" ? "(file)" : text.replace(/^\./, "");
}

/**
 * Checks `value` against `schema`; the parsed value, or a {@link BenchDataError} naming the first
 * field that does not fit. `prefix` is prepended to the field path (a part checked apart).
 *
 * @throws BenchDataError when `value` does not fit `schema`
 */
export function checkShape<S extends z.ZodType>(
  schema: S,
  value: unknown,
  path: string,
  kind: string,
  prefix: readonly PropertyKey[] = [],
): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new BenchDataError(path, kind, fieldPath([...prefix, ...(issue?.path ?? [])]), issue?.message ?? "does not fit");
}

/**
 * Reads the JSON file at `path` and checks it against `schema` ({@link checkShape}).
 *
 * @throws BenchDataError when the file is not JSON or does not fit `schema`
 */
export function readDataFile<S extends z.ZodType>(schema: S, path: string, kind: string): z.infer<S> {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== undefined) throw error;
    throw new BenchDataError(path, kind, "(file)", `not JSON (${(error as Error).message})`);
  }
  return checkShape(schema, value, path, kind);
}
