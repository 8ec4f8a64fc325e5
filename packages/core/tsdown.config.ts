import { defineConfig } from "tsdown";

export default defineConfig({
  entry: { index: "src/index.ts", testing: "src/testing/index.ts" },
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  platform: "node",
  target: "node20",
});
