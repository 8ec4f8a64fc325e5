import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { ThreadwiseConfigError } from "@threadwise/core";
import { z } from "zod/v4";

/**
 * The `BaseStore` methods user memory calls (reads, writes, erasure, re-sealing). LangGraph's
 * `BaseStore` implements each over `batch`, so every store made from it (`InMemoryStore`,
 * `PostgresStore`, a subclass) has them all; a hand-made object may not.
 */
export const STORE_METHODS = ["batch", "get", "search", "put", "delete", "listNamespaces"] as const;

/** The names of {@link STORE_METHODS} that `value` does not have as functions (all of them for a non-object). */
export function missingStoreMethods(value: unknown): string[] {
  if (typeof value !== "object" || value === null) return [...STORE_METHODS];
  return STORE_METHODS.filter((method) => typeof (value as Record<string, unknown>)[method] !== "function");
}

/** Why `value` is not a store user memory can use, or `undefined` when it is. */
export function storeShapeProblem(value: unknown): string | undefined {
  const missing = missingStoreMethods(value);
  if (missing.length === 0) return undefined;
  const what =
    typeof value !== "object" || value === null ? `got ${value === null ? "null" : typeof value}` : `it has no ${missing.join(", ")}`;
  return `expected a LangGraph BaseStore (InMemoryStore, PostgresStore, or a class extending BaseStore), with ${STORE_METHODS.join(", ")}; ${what}`;
}

/**
 * A store option: a `BaseStore` with every method of {@link STORE_METHODS}; anything else is refused
 * at construction naming the option and the missing methods (a store without `put` was accepted,
 * and every turn's memory was then dropped with one warning).
 */
export const storeOptionSchema = z.custom<BaseStore>((value) => storeShapeProblem(value) === undefined, {
  error: (issue) => storeShapeProblem(issue.input) ?? "expected a LangGraph BaseStore",
});

/**
 * @throws ThreadwiseConfigError naming `option` when `store` lacks a method of {@link STORE_METHODS}.
 */
export function assertStoreShape(store: unknown, option: string): asserts store is BaseStore {
  const problem = storeShapeProblem(store);
  if (problem !== undefined) throw new ThreadwiseConfigError(option, problem);
}
