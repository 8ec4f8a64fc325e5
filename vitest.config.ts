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

/** Every test file of the repository. */
const ALL = ["packages/*/src/**/*.test.ts", "test/**/*.test.ts", "examples/**/*.test.ts"];
/**
 * The slow suite (`pnpm test:slow`): packaging, multi-process and crash tests, and any file over
 * ~30 s on an idle 2-core machine. Name such files `*.slow.test.ts`; nothing else goes here.
 */
const SLOW = ["**/*.slow.test.ts"];

export default defineConfig({
  resolve: { alias },
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ["./test/global-setup.ts"],
    // `pnpm test` runs the fast project, `pnpm test:slow` the slow one; `pnpm vitest run <file>`
    // runs a file in whichever project holds it.
    projects: [
      { extends: true, test: { name: "fast", include: ALL, exclude: [...SLOW, "**/node_modules/**"] } },
      // One slow file at a time on every machine (as on the 2-core CI, where vitest's default is one
      // worker): packaging rebuilds each package's dist with tsdown (deleting it first) while
      // built.bench.slow loads, rebuilds and ages the same files.
      { extends: true, test: { name: "slow", include: SLOW, exclude: ["**/node_modules/**"], maxWorkers: 1 } },
    ],
  },
});
