import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";

/**
 * Adds `filePath` to the nearest `.gitignore` at or above its directory, stopping at the git root
 * (a directory holding `.git`). Creates `.gitignore` at the git root, or beside the file when there
 * is no repository: a `.gitignore` above the file outside any repository (`/tmp/.gitignore`,
 * `~/.gitignore`) ignores nothing, and is left alone. Does nothing when the entry is already
 * listed. Returns the `.gitignore` path.
 *
 * Used by {@link createKeyring} so a development keyring is never committed (R26).
 */
export function addToNearestGitignore(filePath: string): string {
  const gitignore = nearestGitignore(dirname(filePath)) ?? join(dirname(filePath), ".gitignore");
  const entry = `/${relative(dirname(gitignore), filePath).split(sep).join("/")}`;
  const existing = existsSync(gitignore) ? readFileSync(gitignore, "utf8") : undefined;
  if (existing === undefined) {
    writeFileSync(gitignore, `${entry}\n`);
    return gitignore;
  }
  const lines = existing.split(/\r?\n/).map((line) => line.trim());
  if (lines.includes(entry) || lines.includes(entry.slice(1))) return gitignore;
  appendFileSync(gitignore, `${existing.length > 0 && !existing.endsWith("\n") ? "\n" : ""}${entry}\n`);
  return gitignore;
}

/** The nearest `.gitignore` from `start` up to the git root, else the root's; `undefined` outside a repository. */
function nearestGitignore(start: string): string | undefined {
  let nearest: string | undefined;
  let dir = start;
  for (;;) {
    const candidate = join(dir, ".gitignore");
    if (nearest === undefined && existsSync(candidate)) nearest = candidate;
    if (existsSync(join(dir, ".git"))) return nearest ?? candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
