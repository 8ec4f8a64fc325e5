/**
 * V8's sampling profiler around the timed part of a bench (bench/overhead.ts, bench/scale.ts):
 * start it, run the calls, stop it, and read the functions with the most self time inside given
 * time windows (the timed calls), as a markdown table in ms per call.
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A V8 CPU profile (the parts read here). */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string } }>;
  startTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** A started profiler; `stop` writes the profile to the OS temp dir as `<name>.cpuprofile` and returns it with its path. */
export interface Profiling {
  stop(name: string): Promise<{ profile: CpuProfile; path: string }>;
}

/** Starts V8's sampling profiler on this process, sampling every `intervalUs` microseconds. */
export async function startProfile(intervalUs = 100): Promise<Profiling> {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: intervalUs });
  await session.post("Profiler.start");
  return {
    async stop(name) {
      const { profile } = (await session.post("Profiler.stop")) as unknown as { profile: CpuProfile };
      session.disconnect();
      const path = join(tmpdir(), `${name}.cpuprofile`);
      writeFileSync(path, JSON.stringify(profile));
      return { profile, path };
    },
  };
}

/** Microseconds on the profile's clock (the monotonic clock `process.hrtime` reads). */
export const profileClockUs = (): number => Number(process.hrtime.bigint() / 1000n);

/**
 * Self time by function (`` `name` | where ``: a package path, a node_modules package, or a file)
 * in samples taken inside `windows` (pairs of {@link profileClockUs} readings, ascending; all
 * samples when none are given), microseconds, bench files left out; and the microseconds the
 * samples cover.
 */
export function selfTimes(
  profile: CpuProfile,
  windows?: ReadonlyArray<readonly [number, number]>,
): { byFunction: Map<string, number>; sampledUs: number } {
  const self = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  let at = profile.startTime;
  let w = 0;
  let sampled = 0;
  for (let i = 0; i < samples.length; i += 1) {
    at += deltas[i] ?? 0;
    if (windows) {
      while (w < windows.length && at > (windows[w] as readonly [number, number])[1]) w += 1;
      const window = windows[w];
      if (!window || at < window[0]) continue;
    }
    const us = deltas[i + 1] ?? 0;
    sampled += us;
    self.set(samples[i] as number, (self.get(samples[i] as number) ?? 0) + us);
  }
  const byFunction = new Map<string, number>();
  for (const node of profile.nodes) {
    const us = self.get(node.id) ?? 0;
    const url = node.callFrame.url;
    if (us === 0 || url.includes("/bench/")) continue;
    let where: string;
    if (url.includes("/packages/")) where = url.slice(url.indexOf("/packages/") + 1);
    else if (url.includes("node_modules/")) {
      const parts = url.slice(url.lastIndexOf("node_modules/") + 13).split("/");
      where = (parts[0] ?? "").startsWith("@") ? `${parts[0]}/${parts[1]}` : (parts[0] ?? "");
    } else where = url === "" ? "(native)" : (url.split("/").at(-1) ?? url);
    const key = `\`${node.callFrame.functionName || "(anonymous)"}\` | ${where}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  }
  return { byFunction, sampledUs: sampled };
}

const msPerCall = (us: number, calls: number) => {
  const v = us / 1000 / Math.max(1, calls);
  return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(3);
};

/**
 * The `top` functions with the most self time in samples taken inside `windows` (see
 * {@link selfTimes}), in ms per call over `calls`, as a markdown table; and the ms the samples cover.
 */
export function selfTimeTable(
  profile: CpuProfile,
  calls: number,
  windows?: ReadonlyArray<readonly [number, number]>,
  top = 15,
): { table: string; sampledMs: number } {
  const { byFunction, sampledUs } = selfTimes(profile, windows);
  const rows = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top);
  return {
    table: [
      "| function | where | self ms / call |",
      "|---|---|---:|",
      ...rows.map(([key, us]) => `| ${key} | ${msPerCall(us, calls)} |`),
    ].join("\n"),
    sampledMs: sampledUs / 1000,
  };
}

/**
 * The `top` functions whose self time differs most between two sets of windows of one profile
 * (`a` minus `b`, ms per call over `calls` each), as a markdown table: what a configuration does
 * that the other does not.
 */
export function selfTimeDiffTable(
  profile: CpuProfile,
  calls: number,
  a: ReadonlyArray<readonly [number, number]>,
  b: ReadonlyArray<readonly [number, number]>,
  top = 25,
): string {
  const x = selfTimes(profile, a);
  const y = selfTimes(profile, b);
  const keys = new Set([...x.byFunction.keys(), ...y.byFunction.keys()]);
  const rows = [...keys]
    .map((key) => [key, x.byFunction.get(key) ?? 0, y.byFunction.get(key) ?? 0] as const)
    .sort((p, q) => Math.abs(q[1] - q[2]) - Math.abs(p[1] - p[2]))
    .slice(0, top);
  return [
    `| function | where | a ms / call | b ms / call | a - b |`,
    "|---|---|---:|---:|---:|",
    `| (all sampled) | | ${msPerCall(x.sampledUs, calls)} | ${msPerCall(y.sampledUs, calls)} | ${((x.sampledUs - y.sampledUs) / 1000 / Math.max(1, calls)).toFixed(2)} |`,
    ...rows.map(
      ([key, u, v]) => `| ${key} | ${msPerCall(u, calls)} | ${msPerCall(v, calls)} | ${((u - v) / 1000 / Math.max(1, calls)).toFixed(2)} |`,
    ),
  ].join("\n");
}

/** A node of V8's sampling heap profile (the parts read here). */
interface HeapNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children: HeapNode[];
}

/** V8's sampling heap profile: the allocation call tree and one entry per sampled allocation. */
export interface HeapProfile {
  head: HeapNode;
  samples: Array<{ size: number; nodeId: number; ordinal: number }>;
}

/** A started sampling heap profiler: `take` ends the current period and returns its profile, `restart` begins the next, `close` ends it. */
export interface HeapSampling {
  take(): Promise<HeapProfile>;
  restart(): Promise<void>;
  close(): void;
}

/**
 * Starts V8's sampling heap profiler (`HeapProfiler.startSampling`, one sample per `intervalBytes`
 * allocated on average) with the objects later collected by minor and major GCs kept in the
 * profile: what is allocated, not what survives. With `minorCollected` false, the objects a
 * scavenge collected are left out: what was promoted to the old space (or allocated there), alive
 * at the end or collected by a major GC later.
 */
export async function startHeapSampling(intervalBytes = 1024, minorCollected = true): Promise<HeapSampling> {
  const session = new Session();
  session.connect();
  const options = {
    samplingInterval: intervalBytes,
    includeObjectsCollectedByMinorGC: minorCollected,
    includeObjectsCollectedByMajorGC: true,
  };
  await session.post("HeapProfiler.enable");
  await session.post("HeapProfiler.startSampling", options);
  return {
    async take() {
      const { profile } = (await session.post("HeapProfiler.stopSampling")) as unknown as { profile: HeapProfile };
      return profile;
    },
    async restart() {
      await session.post("HeapProfiler.startSampling", options);
    },
    close() {
      session.disconnect();
    },
  };
}

/** Where a frame's code is: a package path (`packages/...`), a node_modules package, a file, or `(native)`. */
function whereOf(url: string): string {
  if (url.includes("/packages/")) return url.slice(url.indexOf("/packages/") + 1);
  if (url.includes("node_modules/")) {
    const parts = url.slice(url.lastIndexOf("node_modules/") + 13).split("/");
    return (parts[0] ?? "").startsWith("@") ? `${parts[0]}/${parts[1]}` : (parts[0] ?? "");
  }
  return url === "" ? "(native)" : (url.split("/").at(-1) ?? url);
}

/**
 * Adds a sampling heap profile's bytes to `byFrame` (by the innermost frame with a url:
 * `` `name` | where ``) and to `byOurs` (by the innermost named frame of `packages/` on the stack,
 * an anonymous one when it has no named one around it, `(not ours)` when none): bytes allocated by each function, and by each of our functions
 * with what it called; each sample scaled as V8 scales it (`intervalBytes`: the sampling interval).
 * Returns the profile's bytes.
 */
export function addAllocations(
  profile: HeapProfile,
  intervalBytes: number,
  byFrame: Map<string, number>,
  byOurs: Map<string, number>,
): number {
  const frameOf = new Map<number, string>();
  const oursOf = new Map<number, string>();
  const walk = (node: HeapNode, frame: string, ours: string) => {
    const { functionName, url } = node.callFrame;
    const key = `\`${functionName || "(anonymous)"}\` | ${whereOf(url)}`;
    const f = url === "" ? frame : key;
    // Ours by name: an anonymous closure or tsx's `__name` is billed to the named function of ours around it.
    const named = functionName !== "" && functionName !== "__name";
    const o = url.includes("/packages/") && (named || ours === "(not ours)") ? key : ours;
    frameOf.set(node.id, f);
    oursOf.set(node.id, o);
    for (const child of node.children) walk(child, f, o);
  };
  walk(profile.head, "(root)", "(not ours)");
  let total = 0;
  for (const sample of profile.samples) {
    // V8 samples an allocation of `size` bytes with probability 1 - exp(-size / interval): each sample stands for size / that.
    const bytes = sample.size / (1 - Math.exp(-sample.size / intervalBytes));
    total += bytes;
    const f = frameOf.get(sample.nodeId) ?? "(root)";
    const o = oursOf.get(sample.nodeId) ?? "(not ours)";
    byFrame.set(f, (byFrame.get(f) ?? 0) + bytes);
    byOurs.set(o, (byOurs.get(o) ?? 0) + bytes);
  }
  return total;
}
