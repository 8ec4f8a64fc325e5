/**
 * A temporary folder for an example's files (SQLite databases, keyrings), removed when the
 * process exits, so running the examples leaves nothing behind.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Creates `<os temp dir>/threadwise-<name>-XXXXXX` and removes it, with everything in it, at
 * process exit (also after an uncaught error; Ctrl+C exits through the default handler and skips
 * it).
 */
export function exampleTempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `threadwise-${name}-`));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
