/**
 * bench/replay-cost.ts `--heap-profile` / `--heap-promoted` read V8's sampling heap profile with
 * `addAllocations`: each sample scaled as V8 scales it, billed to its innermost frame and to the
 * innermost named function of `packages/` around it.
 */
import { describe, expect, it } from "vitest";
import { addAllocations, type HeapProfile, startHeapSampling } from "../bench/support/profile.js";

const frame = (id: number, functionName: string, url: string, children: HeapProfile["head"][] = []) => ({
  id,
  callFrame: { functionName, url },
  children,
});

describe("addAllocations", () => {
  // (root) -> put (ours) -> anonymous closure (ours) -> reviver (@langchain/core) -> a builtin (no url)
  //        -> groupUnit (ours)
  //        -> RunTree (langsmith)
  const profile: HeapProfile = {
    head: frame(1, "(root)", "", [
      frame(2, "put", "file:///w/packages/memory/src/threadwise-saver.ts", [
        frame(3, "", "file:///w/packages/memory/src/threadwise-saver.ts", [
          frame(4, "reviver", "file:///w/node_modules/.pnpm/x/node_modules/@langchain/core/dist/load/index.js", [frame(5, "parse", "")]),
        ]),
      ]),
      frame(6, "groupUnit", "file:///w/packages/core/src/groups.ts"),
      frame(7, "RunTree", "file:///w/node_modules/langsmith/dist/run_trees.js"),
    ]),
    samples: [
      { size: 1024, nodeId: 5, ordinal: 1 },
      { size: 64, nodeId: 4, ordinal: 2 },
      { size: 32, nodeId: 6, ordinal: 3 },
      { size: 4096, nodeId: 7, ordinal: 4 },
    ],
  };
  const scaled = (size: number) => size / (1 - Math.exp(-size / 1024));

  it("scales each sample by the chance V8 sampled it and bills it to its innermost frame with a url", () => {
    const byFrame = new Map<string, number>();
    const total = addAllocations(profile, 1024, byFrame, new Map());
    expect(total).toBeCloseTo(scaled(1024) + scaled(64) + scaled(32) + scaled(4096), 6);
    // A 32-byte object is sampled about once per 1,024 bytes allocated: it stands for ~1 KiB.
    expect(byFrame.get("`groupUnit` | packages/core/src/groups.ts")).toBeCloseTo(scaled(32), 6);
    expect(scaled(32)).toBeGreaterThan(1000);
    // The builtin's sample goes to its JavaScript caller.
    expect(byFrame.get("`reviver` | @langchain/core")).toBeCloseTo(scaled(1024) + scaled(64), 6);
    expect(byFrame.get("`RunTree` | langsmith")).toBeCloseTo(scaled(4096), 6);
  });

  it("bills what our functions called to the innermost named function of ours, the rest to (not ours)", () => {
    const byOurs = new Map<string, number>();
    addAllocations(profile, 1024, new Map(), byOurs);
    expect([...byOurs.keys()].sort()).toEqual([
      "(not ours)",
      "`groupUnit` | packages/core/src/groups.ts",
      "`put` | packages/memory/src/threadwise-saver.ts",
    ]);
    expect(byOurs.get("`put` | packages/memory/src/threadwise-saver.ts")).toBeCloseTo(scaled(1024) + scaled(64), 6);
    expect(byOurs.get("(not ours)")).toBeCloseTo(scaled(4096), 6);
  });

  it("adds a live profile's allocations (V8's own sampler)", async () => {
    const heap = await startHeapSampling(1024);
    const kept: number[][] = [];
    for (let i = 0; i < 200; i += 1) kept.push(new Array(1000).fill(i));
    const byFrame = new Map<string, number>();
    const total = addAllocations(await heap.take(), 1024, byFrame, new Map());
    heap.close();
    // 200 arrays of 1,000 small integers: at least 200 x 4,000 bytes (8,000 without pointer compression).
    expect(kept.length).toBe(200);
    expect(total).toBeGreaterThan(800_000);
  });
});
