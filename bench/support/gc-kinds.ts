/**
 * perf_hooks' `gc` entries (bench/replay-cost.ts `--step-gc`) counted by kind. An entry's
 * `detail.kind` is one of Node's `NODE_PERFORMANCE_GC_*` constants (`perf_hooks.constants`:
 * minor 1, major 4, incremental 8, weak callbacks 16).
 * (Until session 59 the bench read 2 as major, 4 as incremental and 8 as weak: its `incremental`
 * column counted the major collections, its `weak` column the incremental markings, and `major`
 * was always 0.)
 */
import { constants } from "node:perf_hooks";

/** Collections by kind. */
export interface GcKindCounts {
  minor: number;
  major: number;
  incremental: number;
  weak: number;
}

/** Adds one `gc` entry of kind `kind` (its `detail.kind`) to `counts`. */
export function countGcKind(counts: GcKindCounts, kind: number): void {
  if (kind & constants.NODE_PERFORMANCE_GC_MINOR) counts.minor += 1;
  if (kind & constants.NODE_PERFORMANCE_GC_MAJOR) counts.major += 1;
  if (kind & constants.NODE_PERFORMANCE_GC_INCREMENTAL) counts.incremental += 1;
  if (kind & constants.NODE_PERFORMANCE_GC_WEAKCB) counts.weak += 1;
}
