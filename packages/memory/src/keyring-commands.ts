import { type BaseCheckpointSaver, JsonPlusSerializer } from "@langchain/langgraph-checkpoint";
import { envChoice, envString, parseWholeNumber, ThreadwiseConfigError } from "@threadwise/core";
import {
  createKeyring,
  encryptCheckpointer,
  KEYRING_ENV,
  loadKeyring,
  PRINCIPAL_ID_ENV,
  reencrypt,
  rotateKeyring,
} from "@threadwise/encryption";
import { type ReencryptUserItemsResult, reencryptUserItems, UserItemCodec } from "@threadwise/user-memory";
import type { Command } from "commander";
import { MEMORY_ENV, MIGRATION_DSN_ENV, PG_POOL_MODES } from "./config.js";
import { loadPostgresSaver, loadSqliteSaver, openExistingSqliteFile } from "./optional-peers.js";
import { assertSchemaVersion } from "./pg-migrations.js";
import { createMemoryPool } from "./pg-pool.js";
import { assertSchemaName } from "./pg-thread-registry.js";
import { progressBar } from "./progress-bar.js";
import {
  type ArchiveReencryptResult,
  type ArchiveRowStore,
  postgresArchiveRows,
  reencryptArchiveRows,
  sqliteArchiveRows,
} from "./reencrypt-archive.js";
import { postgresUserStore } from "./user-memory-store.js";

/** Default path of a development keyring when neither an argument nor env names one. */
export const DEFAULT_KEYRING_PATH = ".threadwise/keyring.json";

/**
 * Adds `threadwise keyring ...` to `program` (spec R26, R29), wiring `@threadwise/encryption`: `create` writes a
 * development keyring (mode 0600, listed in `.gitignore`); `rotate` adds a new active key and
 * keeps the old one for reads; `reencrypt` moves every stored record to the active kid: the
 * saver's rows and, on PostgreSQL, every user's user-memory items in the PostgresStore of the same
 * database and schema (the store `memoryStack({ userMemory: true })` makes there), after which
 * `retireKey` may drop the old one; with `--encrypt-plaintext` it also seals the checkpoint records
 * and user-memory items stored in plaintext (a store written without a keyring), once. A SQLite target reaches no user memory (stacks keep it in an
 * InMemoryStore or a store the application passes): the report says so, and
 * `reencryptUserItems(store, codec)` re-seals it in code. Key material is never printed: only paths and kids.
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
      `Re-seal every stored record with the keyring's active kid, in batches: the checkpoints, the message archive (threadwise_archive) and, on PostgreSQL, every user's user-memory items in the PostgresStore of the same schema (PostgreSQL: --dsn, default env ${MIGRATION_DSN_ENV} then ${MEMORY_ENV.postgresDsn}; or --sqlite, whose user memory is not reachable here: re-seal it in code with reencryptUserItems). Retire the old kid (retireKey(path, oldKid) from @threadwise/encryption) only when a dry run counts nothing under it.`,
    )
    .option("--keyring <path>", `keyring file (default: env ${KEYRING_ENV})`)
    .option("--dsn <dsn>", `PostgreSQL DSN (default: env ${MIGRATION_DSN_ENV}, else ${MEMORY_ENV.postgresDsn})`)
    .option("--sqlite <path>", "SQLite memory file instead of PostgreSQL")
    .option("--schema <name>", "PostgreSQL schema (default: env MEMORY_PG_SCHEMA, else public)", (value: string) =>
      assertSchemaName(value, "--schema"),
    )
    .option("--agent-id <id>", "agent id the data keys are derived for", "default")
    .option("--principal-id <id>", `principal id the user-memory items were sealed for (default: env ${PRINCIPAL_ID_ENV}, else default)`)
    .option(
      "--batch-size <n>",
      "rows per transaction (a whole number >= 1)",
      (value: string) => parseWholeNumber(value, "--batch-size", { min: 1, max: 1_000_000 }),
      100,
    )
    .option("--dry-run", "count records per kid without writing")
    .option(
      "--encrypt-plaintext",
      "also seal the checkpoint records and, on PostgreSQL, the user-memory items stored in plaintext (a store written without a keyring, e.g. under MEMORY_ALLOW_PLAINTEXT), once; without it a plaintext checkpoint record fails the run with plaintext-record and plaintext items are left as they are",
    )
    .option("--json", "print the report as JSON")
    .action(
      async (opts: {
        keyring?: string;
        dsn?: string;
        sqlite?: string;
        schema?: string;
        agentId: string;
        principalId?: string;
        batchSize: number;
        dryRun?: boolean;
        encryptPlaintext?: boolean;
        json?: boolean;
      }) => {
        if (opts.keyring === undefined && envString(KEYRING_ENV, env) === undefined)
          throw new ThreadwiseConfigError(
            "--keyring",
            `give --keyring PATH or set ${KEYRING_ENV} (the keyring the records were sealed with)`,
          );
        const keyring = loadKeyring(opts.keyring, env, "--keyring");
        let inner: BaseCheckpointSaver;
        let close: () => Promise<void>;
        // The store of user memory, where this command can reach it (PostgreSQL: the stack's PostgresStore).
        let userStore: ReturnType<typeof postgresUserStore> | undefined;
        // The stack's archive (threadwise_archive): archived messages are sealed there, not in the checkpoint tables.
        let archiveRows: ArchiveRowStore | undefined;
        if (opts.sqlite) {
          const SqliteSaver = loadSqliteSaver();
          const db = openExistingSqliteFile(opts.sqlite);
          inner = new SqliteSaver(db, new JsonPlusSerializer());
          archiveRows = sqliteArchiveRows(db);
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
          // PgBouncer's transaction mode (MEMORY_PG_POOL_MODE), as every other command's pool.
          const pool = createMemoryPool(dsn, { mode: envChoice(MEMORY_ENV.pgPoolMode, PG_POOL_MODES, env), max: 2 });
          close = () => pool.end();
          try {
            await assertSchemaVersion(pool, schema);
          } catch (error) {
            await close();
            throw error;
          }
          inner = new PostgresSaver(pool, new JsonPlusSerializer(), { schema });
          userStore = postgresUserStore(pool, { schema, dsn, max: 2 });
          archiveRows = postgresArchiveRows(pool, schema);
        }
        const bar = progressBar(io, "reencrypt", "rows");
        try {
          const saver = encryptCheckpointer(inner, { keyring, agentId: opts.agentId }, env);
          const result = await reencrypt({
            saver,
            batchSize: opts.batchSize,
            dryRun: Boolean(opts.dryRun),
            encryptPlaintext: Boolean(opts.encryptPlaintext),
            onProgress: (p) => bar.update(p.scanned, p.total),
          });
          bar.stop();
          const dryRun = Boolean(opts.dryRun);
          const archive: ArchiveReencryptResult | undefined = archiveRows
            ? await reencryptArchiveRows(archiveRows, saver, {
                batchSize: opts.batchSize,
                dryRun,
                encryptPlaintext: Boolean(opts.encryptPlaintext),
              })
            : undefined;
          let items: ReencryptUserItemsResult | undefined;
          if (userStore !== undefined) {
            const principalId = opts.principalId ?? envString(PRINCIPAL_ID_ENV, env) ?? "default";
            const codec = new UserItemCodec({ keyring, agentId: opts.agentId, principalId });
            items = await reencryptUserItems(userStore, codec, { dryRun, encryptPlaintext: Boolean(opts.encryptPlaintext) });
          }
          if (opts.json)
            out(
              `${JSON.stringify({ dryRun, activeKid: result.activeKid, checkpoints: result, archive: archive ?? null, userMemory: items ?? null }, null, 2)}\n`,
            );
          else {
            const kids = Object.entries(result.recordsByKid)
              .map(([kid, n]) => `${kid}: ${n}`)
              .join(", ");
            out(
              `${dryRun ? "dry run: would re-seal" : "re-sealed"} ${result.rewritten} of ${result.scanned} rows to kid ${result.activeKid} (records by kid before: ${kids || "none"})\n`,
            );
            if (archive) out(archiveLine(archive, result.activeKid, dryRun));
            out(
              items
                ? userItemsLine(items, result.activeKid, dryRun, Boolean(opts.encryptPlaintext))
                : "user memory: not reached (a SQLite target: stacks keep user memory in an InMemoryStore or a store the application passes); re-seal it in code with reencryptUserItems(store, codec) before retiring a kid\n",
            );
          }
          // Items under an old kid that did not open stay on it: retiring that kid would lose them.
          if (items && !dryRun && items.unopenable > 0)
            throw new ThreadwiseConfigError(
              "--principal-id",
              `${items.unopenable} user-memory item(s) under an old kid did not open with this keyring, --agent-id ${JSON.stringify(opts.agentId)} and --principal-id ${JSON.stringify(opts.principalId ?? envString(PRINCIPAL_ID_ENV, env) ?? "default")}, so they stay on the old kid (retiring it would lose them); run again with the ids they were sealed for (userMemory's agentId and principalId)`,
            );
        } finally {
          bar.stop();
          await close();
        }
      },
    );
  return keyring;
}

/** User-memory items sealed with a kid other than `activeKid` before the run. */
function staleItems(result: ReencryptUserItemsResult, activeKid: string): number {
  return Object.entries(result.byKid).reduce((sum, [kid, n]) => (kid === activeKid ? sum : sum + n), 0);
}

/** What the report says of the plaintext user-memory items: sealed, would be sealed, or left (and the flag that seals them). */
function plaintextItemsPart(result: ReencryptUserItemsResult, dryRun: boolean, encryptPlaintext: boolean): string {
  if (result.plaintext === 0) return "";
  if (!encryptPlaintext) return `${result.plaintext} plaintext item(s) left as they are (--encrypt-plaintext seals them)`;
  if (dryRun) return `${result.plaintext} plaintext item(s) found (--encrypt-plaintext seals them)`;
  const left = result.plaintext - result.sealedPlaintext;
  return `sealed ${result.sealedPlaintext} plaintext item(s)${left > 0 ? `; ${left} plaintext item(s) left (not a well-formed item of its namespace's user)` : ""}`;
}

/** The report line of the archive (archived messages and rewrite markers) {@link reencryptArchiveRows} re-sealed. */
function archiveLine(result: ArchiveReencryptResult, activeKid: string, dryRun: boolean): string {
  const kids = Object.entries(result.recordsByKid)
    .map(([kid, n]) => `${kid}: ${n}`)
    .join(", ");
  return `archive: ${dryRun ? "would re-seal" : "re-sealed"} ${result.rewritten} of ${result.scanned} archived rows to kid ${activeKid} (records by kid before: ${kids || "none"})\n`;
}

/** The report line of the user-memory items {@link reencryptUserItems} found and re-sealed. */
function userItemsLine(result: ReencryptUserItemsResult, activeKid: string, dryRun: boolean, encryptPlaintext: boolean): string {
  const kids = Object.entries(result.byKid)
    .map(([kid, n]) => `${kid}: ${n}`)
    .join(", ");
  const stale = staleItems(result, activeKid);
  const left = [
    result.unopenable > 0
      ? `${result.unopenable} item(s) under an old kid do not open (sealed for another keyring, --agent-id or --principal-id, or tampered)${dryRun ? "" : " and stay on it"}`
      : "",
    plaintextItemsPart(result, dryRun, encryptPlaintext),
  ].filter((part) => part !== "");
  return `user memory: ${dryRun ? `dry run: would re-seal ${stale - result.unopenable}` : `re-sealed ${result.resealed}`} item(s) to kid ${activeKid} (items by kid before: ${kids || "none"})${left.map((part) => `; ${part}`).join("")}\n`;
}
