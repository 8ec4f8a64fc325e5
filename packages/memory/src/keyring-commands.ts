import { type BaseCheckpointSaver, JsonPlusSerializer } from "@langchain/langgraph-checkpoint";
import { envString, parseWholeNumber, ThreadwiseConfigError } from "@threadwise/core";
import { createKeyring, encryptCheckpointer, KEYRING_ENV, loadKeyring, reencrypt, rotateKeyring } from "@threadwise/encryption";
import type { Command } from "commander";
import { MEMORY_ENV, MIGRATION_DSN_ENV } from "./config.js";
import { loadPostgresSaver, loadSqliteSaver, openExistingSqliteFile } from "./optional-peers.js";
import { assertSchemaVersion } from "./pg-migrations.js";
import { createMemoryPool } from "./pg-pool.js";
import { assertSchemaName } from "./pg-thread-registry.js";
import { progressBar } from "./progress-bar.js";

/** Default path of a development keyring when neither an argument nor env names one. */
export const DEFAULT_KEYRING_PATH = ".threadwise/keyring.json";

/**
 * Adds `threadwise keyring ...` to `program` (spec R26, R29), wiring `@threadwise/encryption`: `create` writes a
 * development keyring (mode 0600, listed in `.gitignore`); `rotate` adds a new active key and
 * keeps the old one for reads; `reencrypt` moves every stored record to the active kid (after
 * which `retireKey` may drop the old one). Key material is never printed: only paths and kids.
 */
export function addKeyringCommands(
  program: Command,
  io: { env?: NodeJS.ProcessEnv; stdout?: (text: string) => void; progress?: boolean } = {},
): Command {
  const env = io.env ?? process.env;
  const out = io.stdout ?? ((text: string) => void process.stdout.write(text));
  // Made with program.command() so output and exit handling are inherited.
  const keyring = program.command("keyring").description("Create or rotate the keyring used for encryption at rest.");
  const pathOf = (path?: string) => path ?? envString(KEYRING_ENV, env) ?? DEFAULT_KEYRING_PATH;
  keyring
    .command("create")
    .description(
      `Write a new development keyring (mode 0600, added to .gitignore); never overwrites. Path default: env ${KEYRING_ENV}, else ${DEFAULT_KEYRING_PATH}.`,
    )
    .argument("[path]", "keyring file")
    .option("--kid <kid>", "id of the new key")
    .action((path: string | undefined, opts: { kid?: string }) => {
      const result = createKeyring(pathOf(path), { kid: opts.kid });
      out(
        `created keyring ${result.path} (active kid ${result.kid}, mode 0600${result.gitignore ? `, listed in ${result.gitignore}` : ""})\nexport ${KEYRING_ENV}=${result.path}\n`,
      );
    });
  keyring
    .command("rotate")
    .description("Add a new active key; the old kid stays for reads until records are re-encrypted.")
    .argument("[path]", "keyring file")
    .option("--kid <kid>", "id of the new key")
    .action((path: string | undefined, opts: { kid?: string }) => {
      const result = rotateKeyring(pathOf(path), { kid: opts.kid });
      out(`rotated keyring ${result.path}: active kid ${result.kid}\n`);
    });
  keyring
    .command("reencrypt")
    .description(
      `Re-seal every stored record with the keyring's active kid, in batches (PostgreSQL: --dsn, default env ${MIGRATION_DSN_ENV} then ${MEMORY_ENV.postgresDsn}; or --sqlite).`,
    )
    .option("--keyring <path>", `keyring file (default: env ${KEYRING_ENV})`)
    .option("--dsn <dsn>", `PostgreSQL DSN (default: env ${MIGRATION_DSN_ENV}, else ${MEMORY_ENV.postgresDsn})`)
    .option("--sqlite <path>", "SQLite memory file instead of PostgreSQL")
    .option("--schema <name>", "PostgreSQL schema (default: env MEMORY_PG_SCHEMA, else public)", (value: string) =>
      assertSchemaName(value, "--schema"),
    )
    .option("--agent-id <id>", "agent id the data keys are derived for", "default")
    .option(
      "--batch-size <n>",
      "rows per transaction (a whole number >= 1)",
      (value: string) => parseWholeNumber(value, "--batch-size", { min: 1, max: 1_000_000 }),
      100,
    )
    .option("--dry-run", "count records per kid without writing")
    .action(
      async (opts: {
        keyring?: string;
        dsn?: string;
        sqlite?: string;
        schema?: string;
        agentId: string;
        batchSize: number;
        dryRun?: boolean;
      }) => {
        if (opts.keyring === undefined && envString(KEYRING_ENV, env) === undefined)
          throw new ThreadwiseConfigError(
            "--keyring",
            `give --keyring PATH or set ${KEYRING_ENV} (the keyring the records were sealed with)`,
          );
        const keyring = loadKeyring(opts.keyring, env, "--keyring");
        let inner: BaseCheckpointSaver;
        let close: () => Promise<void>;
        if (opts.sqlite) {
          const SqliteSaver = loadSqliteSaver();
          const db = openExistingSqliteFile(opts.sqlite);
          inner = new SqliteSaver(db, new JsonPlusSerializer());
          close = async () => void db.close();
        } else {
          const dsn = opts.dsn ?? envString(MIGRATION_DSN_ENV, env) ?? envString(MEMORY_ENV.postgresDsn, env);
          if (!dsn)
            throw new ThreadwiseConfigError(
              "--dsn",
              `give --dsn DSN or --sqlite FILE, or set ${MIGRATION_DSN_ENV} or ${MEMORY_ENV.postgresDsn}`,
            );
          const schema = opts.schema ?? envString(MEMORY_ENV.postgresSchema, env) ?? "public";
          const PostgresSaver = loadPostgresSaver();
          const pool = createMemoryPool(dsn, { max: 2 });
          close = () => pool.end();
          try {
            await assertSchemaVersion(pool, schema);
          } catch (error) {
            await close();
            throw error;
          }
          inner = new PostgresSaver(pool, new JsonPlusSerializer(), { schema });
        }
        const bar = progressBar(io, "reencrypt", "rows");
        try {
          const saver = encryptCheckpointer(inner, { keyring, agentId: opts.agentId }, env);
          const result = await reencrypt({
            saver,
            batchSize: opts.batchSize,
            dryRun: Boolean(opts.dryRun),
            onProgress: (p) => bar.update(p.scanned, p.total),
          });
          bar.stop();
          const kids = Object.entries(result.recordsByKid)
            .map(([kid, n]) => `${kid}: ${n}`)
            .join(", ");
          out(
            `${opts.dryRun ? "dry run: would re-seal" : "re-sealed"} ${result.rewritten} of ${result.scanned} rows to kid ${result.activeKid} (records by kid before: ${kids || "none"})\n`,
          );
        } finally {
          bar.stop();
          await close();
        }
      },
    );
  return keyring;
}
