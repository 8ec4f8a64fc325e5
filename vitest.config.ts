import { existsSync, readdirSync } from "node:fs";
import { resolve } from "node:path";
import { defineConfig } from "vitest/config";

// Tests import packages by name; resolve them to source so no build is needed first.
const packagesDir = resolve(import.meta.dirname, "packages");
const alias = [
  { find: "@threadwise/core/testing", replacement: resolve(packagesDir, "core/src/testing/index.ts") },
  ...readdirSync(packagesDir)
    .filter((name) => existsSync(resolve(packagesDir, name, "src/index.ts")))
    .map((name) => ({ find: new RegExp(`^@threadwise/${name}$`), replacement: resolve(packagesDir, name, "src/index.ts") })),
];

export default defineConfig({
  resolve: { alias },
  test: {
    include: ["packages/*/src/**/*.test.ts", "test/**/*.test.ts", "examples/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ["./test/global-setup.ts"],
  },
});
