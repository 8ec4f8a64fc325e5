import { ThreadwiseConfigError } from "@threadwise/core";

/**
 * The fields `createAgent` reads from each entry of its `middleware` array (those
 * `createMiddleware` sets, LangChain 1.x). An entry without them is skipped without a word: no
 * hook runs, no state is declared.
 */
const MIDDLEWARE_FIELDS = [
  "name",
  "tools",
  "stateSchema",
  "contextSchema",
  "wrapToolCall",
  "wrapModelCall",
  "beforeAgent",
  "beforeModel",
  "afterModel",
  "afterAgent",
  "streamTransformers",
] as const;

/**
 * Makes `target` (the object `memoryStack` returns, or an array of middlewares) throw when it is
 * read as one middleware, i.e. when it was nested in `createAgent({ middleware: [...] })` instead
 * of spread. In JavaScript nothing else catches it: `createAgent` reads `tools`, `name` and the
 * hooks of each entry, finds none, and builds an agent with no memory at all (and, for the stack,
 * without its checkpointer). The getters are non-enumerable, so spreading `target` (the documented
 * use) neither copies nor calls them, and no field of a real middleware is shadowed.
 *
 * @param what how the user got `target`, for the message (`memoryStack()`).
 * @param fix the call that does what they meant.
 * @returns `target`.
 */
export function refuseAsMiddleware<T extends object>(target: T, what: string, fix: string): T {
  return refuseReads(
    target,
    MIDDLEWARE_FIELDS,
    (field) =>
      `${what} is not a middleware (read as one, its "${field}" was asked for): it was nested in the middleware array, where createAgent would skip it silently and the agent would have no memory; ${fix}`,
  );
}

/** The array methods `createAgent` calls on its `middleware` option first (LangChain 1.x: `filter`, `some`, then `flatMap`, ...). */
const MIDDLEWARE_LIST_METHODS = ["filter", "some", "flatMap", "map", "forEach", "find"] as const;

/**
 * Makes `target` (the object `memoryStack` returns) throw when it is used as the middleware array
 * itself, `createAgent({ model, middleware: memoryStack() })`: LangChain calls `filter` on it and
 * failed with `TypeError: this.options.middleware?.filter is not a function`, naming nothing of
 * ours. Non-enumerable, like {@link refuseAsMiddleware}'s getters.
 * @returns `target`.
 */
export function refuseAsMiddlewareList<T extends object>(target: T, what: string, fix: string): T {
  return refuseReads(
    target,
    MIDDLEWARE_LIST_METHODS,
    (field) => `${what} is not the middleware array (its "${field}" was asked for: it was passed as middleware); ${fix}`,
  );
}

/** Defines a non-enumerable getter for each of `fields` on `target` that throws `ThreadwiseConfigError` (`createAgent.middleware`). */
function refuseReads<T extends object>(target: T, fields: readonly string[], message: (field: string) => string): T {
  for (const field of fields) {
    Object.defineProperty(target, field, {
      get() {
        throw new ThreadwiseConfigError("createAgent.middleware", message(field));
      },
      enumerable: false,
      configurable: true,
    });
  }
  return target;
}
