import { SingleBar } from "cli-progress";

/**
 * A progress bar on stderr for long CLI work (prune, retention, reencrypt); a no-op unless
 * `show` (default: stderr is a TTY), so piped output stays clean.
 */
export function progressBar(
  io: { progress?: boolean },
  label: string,
  unit = "threads",
): { update: (done: number, total: number) => void; stop: () => void } {
  const show = io.progress ?? Boolean(process.stderr.isTTY);
  if (!show) return { update() {}, stop() {} };
  const bar = new SingleBar({ format: `${label} [{bar}] {value}/{total} {unit}`, stream: process.stderr, hideCursor: true });
  let started = false;
  return {
    update(done, total) {
      if (!started) {
        bar.start(total, 0, { unit });
        started = true;
      }
      bar.update(done);
    },
    stop() {
      if (started) bar.stop();
      started = false;
    },
  };
}
