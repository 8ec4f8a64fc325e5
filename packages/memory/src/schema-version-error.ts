import { ThreadwiseError } from "@threadwise/core";

/**
 * The PostgreSQL schema is not the one this version of threadwise expects: tables are missing or
 * a recorded migration version differs (spec R21). The runtime never runs DDL; run
 * `threadwise migrate` with `POSTGRES_MIGRATION_DSN`. `component` is `threadwise` or `checkpoint`
 * (PostgresSaver's tables); versions are `null` when the table is missing.
 */
export class ThreadwiseSchemaVersionError extends ThreadwiseError {
  readonly component: string;
  readonly expected: number;
  readonly found: number | null;
  constructor(component: string, expected: number, found: number | null, detail: string) {
    super(
      "THREADWISE_SCHEMA_VERSION",
      `memory schema ${component}: expected version ${expected}, found ${found === null ? "none" : found} (${detail}); run \`threadwise migrate\` with POSTGRES_MIGRATION_DSN`,
    );
    this.component = component;
    this.expected = expected;
    this.found = found;
  }
  static override isInstance(error: unknown): error is ThreadwiseSchemaVersionError {
    return ThreadwiseError.isInstance(error) && error.code === "THREADWISE_SCHEMA_VERSION";
  }
}
