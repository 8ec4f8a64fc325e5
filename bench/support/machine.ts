import { cpus, totalmem } from "node:os";

/** One line naming the machine a benchmark ran on: CPU model, cores, memory, Node version. */
export function machineLine(): string {
  const cpu = cpus();
  return `${cpu[0]?.model ?? "unknown cpu"} x${cpu.length}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`;
}

/** Median of a list of numbers (mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
