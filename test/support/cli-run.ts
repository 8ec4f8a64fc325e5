import { runCli } from "@threadwise/memory";

/** What one `threadwise` command printed and its exit code. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the `threadwise` CLI in-process with `env` (default: empty, so the machine's env is not
 * read) and no progress bar, and returns its exit code and what it printed.
 */
export async function cliRun(argv: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, {
    env,
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    progress: false,
  });
  return { code, stdout, stderr };
}
