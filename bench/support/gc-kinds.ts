/**
 * perf_hooks' `gc` entries (bench/replay-cost.ts `--step-gc`, bench/scale.ts) by kind. An entry's
 * `detail.kind` is one of Node's `NODE_PERFORMANCE_GC_*` constants (`perf_hooks.constants`:
 * minor 1, major 4, incremental 8, weak callbacks 16).
 * (Until session 59 replay-cost read 2 as major, 4 as incremental and 8 as weak: its `incremental`
 * column counted the major collections, its `weak` column the incremental markings, and `major`
 * was always 0.)
 */
import { constants } from "node:perf_hooks";

/** A collection's kind, as the benches name it. */
export type GcKind = "major" | "minor" | "incremental" | "weak";

/** Each `NODE_PERFORMANCE_GC_*` constant's name. */
export const GC_KIND_NAMES: Readonly<Record<number, GcKind>> = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: "major",
  [constants.NODE_PERFORMANCE_GC_MINOR]: "minor",
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental",
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weak",
};

/** Collections by kind. */
export type GcKindCounts = Record<GcKind, number>;

/** Adds one `gc` entry of kind `kind` (its `detail.kind`) to `counts`. */
export function countGcKind(counts: GcKindCounts, kind: number): void {
  for (const [flag, name] of Object.entries(GC_KIND_NAMES)) if (kind & Number(flag)) counts[name] += 1;
}
