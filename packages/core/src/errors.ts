import type { z } from "zod";

/** Base class of every error threadwise throws. `code` is stable across releases. */
export class ThreadwiseError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
  /** `true` for any threadwise error, also across duplicate copies of the package. */
  static isInstance(error: unknown): error is ThreadwiseError {
    const code = (error as { code?: unknown } | null)?.code;
    return error instanceof Error && typeof code === "string" && code.startsWith("THREADWISE_");
  }
}

/**
 * An option or environment variable has a value threadwise cannot use. `option` names it
 * (`windowTrim.maxMessages`, `MEMORY_WINDOW_SIZE`); the message says what is accepted.
 */
export class ThreadwiseConfigError extends ThreadwiseError {
  readonly option: string;
  constructor(option: string, message: string, options?: { cause?: unknown }) {
    super("THREADWISE_INVALID_OPTION", `${option}: ${message}`, options);
    this.option = option;
  }
  static override isInstance(error: unknown): error is ThreadwiseConfigError {
    return ThreadwiseError.isInstance(error) && error.code === "THREADWISE_INVALID_OPTION";
  }
}

/**
 * Parses options with a zod schema and throws {@link ThreadwiseConfigError} naming the first bad
 * field as `<scope>.<field>`. Returns the parsed value with defaults applied.
 *
 * @throws ThreadwiseConfigError when the value does not match the schema.
 */
export function parseOptions<S extends z.ZodType>(scope: string, schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue && issue.path.length > 0 ? `${scope}.${issue.path.join(".")}` : scope;
  throw new ThreadwiseConfigError(field, issue?.message ?? "invalid value", { cause: result.error });
}
