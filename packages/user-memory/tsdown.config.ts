import { defineConfig } from "tsdown";

export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  platform: "node",
  target: "node20",
  // Rolldown's timing report ("[PLUGIN_TIMINGS] Warning") is advice, not a problem with the build;
  // most of the time is the declaration build (dts), expected for type-checked .d.ts output.
  checks: { pluginTimings: false },
});
