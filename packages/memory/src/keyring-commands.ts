import { createKeyring, KEYRING_ENV, rotateKeyring } from "@threadwise/encryption";
import type { Command } from "commander";

/** Default path of a development keyring when neither an argument nor env names one. */
export const DEFAULT_KEYRING_PATH = ".threadwise/keyring.json";

/**
 * Adds `threadwise keyring ...` to `program` (spec R26, R29), wiring `@threadwise/encryption`: `create` writes a
 * development keyring (mode 0600, listed in `.gitignore`); `rotate` adds a new active key and
 * keeps the old one for reads. Key material is never printed: only the path and the kid.
 */
export function addKeyringCommands(program: Command, io: { env?: NodeJS.ProcessEnv; stdout?: (text: string) => void } = {}): Command {
  const env = io.env ?? process.env;
  const out = io.stdout ?? ((text: string) => void process.stdout.write(text));
  // Made with program.command() so output and exit handling are inherited.
  const keyring = program.command("keyring").description("Create or rotate the keyring used for encryption at rest.");
  const pathOf = (path?: string) => path ?? env[KEYRING_ENV] ?? DEFAULT_KEYRING_PATH;
  keyring
    .command("create")
    .description(`Write a new development keyring (mode 0600, added to .gitignore); never overwrites. Path default: env ${KEYRING_ENV}, else ${DEFAULT_KEYRING_PATH}.`)
    .argument("[path]", "keyring file")
    .option("--kid <kid>", "id of the new key")
    .action((path: string | undefined, opts: { kid?: string }) => {
      const result = createKeyring(pathOf(path), { kid: opts.kid });
      out(`created keyring ${result.path} (active kid ${result.kid}, mode 0600${result.gitignore ? `, listed in ${result.gitignore}` : ""})\nexport ${KEYRING_ENV}=${result.path}\n`);
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
  return keyring;
}
