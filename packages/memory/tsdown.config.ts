import { defineConfig } from "tsdown";

export default defineConfig([
  {
    entry: { index: "src/index.ts" },
    format: ["esm", "cjs"],
    dts: true,
    clean: true,
    platform: "node",
    target: "node20",
    checks: { pluginTimings: false }, // see packages/core/tsdown.config.ts
  },
  {
    // The `threadwise` binary: ESM only (top-level await), keeps its shebang.
    entry: { cli: "src/bin.ts" },
    format: ["esm"],
    dts: false,
    clean: false,
    platform: "node",
    target: "node20",
    checks: { pluginTimings: false }, // see packages/core/tsdown.config.ts
  },
]);
