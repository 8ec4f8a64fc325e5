import { initChatModel } from "langchain/chat_models/universal";
import { z } from "zod/v4";
import { ThreadwiseConfigError } from "./errors.js";

/** An object with `invoke()`: a chat model, or any runnable a middleware calls like one. */
const isInvokable = (value: unknown): boolean =>
  typeof value === "object" && value !== null && typeof (value as { invoke?: unknown }).invoke === "function";

/**
 * Zod schema of a middleware's `model` option: a model object (`invoke()`), or a model named as
 * LangChain's `createAgent({ model })` and `summarizationMiddleware({ model })` accept it, a
 * `"provider:model"` string (`"openai:gpt-4o-mini"`, `"anthropic:claude-haiku-4-5"`) or a model
 * name LangChain infers the provider of (`"gpt-4o-mini"`), initialized with `initChatModel`
 * (`langchain/chat_models/universal`) at its first use: see {@link chatModelOption}.
 *
 * @param message what the error says of a value that is neither.
 */
export function chatModelOptionSchema<T>(message = 'expected a chat model (an object with invoke()) or a "provider:model" string') {
  return z.custom<T | string>((value) => isInvokable(value) || (typeof value === "string" && value.trim() !== ""), message);
}

/**
 * The model of a middleware's `model` option, resolved once: `undefined` when none is given, the
 * object itself, or for a string the model LangChain's `initChatModel` makes of it (its provider
 * package, e.g. `@langchain/openai`, is imported then, so constructing the middleware stays
 * synchronous and loads nothing). The first call starts the initialization and every call shares
 * its outcome, a failure included: a missing provider package does not appear in a running
 * process. Middlewares call it at their first model call, so a wrong name fails the agent's first
 * turn, not the first turn that needs the model.
 *
 * @param option the option's name for errors (`summarize.model`).
 * @throws ThreadwiseConfigError naming `option` (from the returned function) when `initChatModel`
 *   refuses the string: a provider package that is not installed, an unknown provider, a name
 *   whose provider cannot be inferred.
 * @example
 * const modelOf = chatModelOption("summarize.model", "openai:gpt-4o-mini");
 * const model = (await modelOf()) ?? request.model;
 */
export function chatModelOption<T>(option: string, value: T | string | undefined): () => Promise<T | undefined> {
  if (typeof value !== "string") return () => Promise.resolve(value);
  const name = value.trim();
  let initialized: Promise<T> | undefined;
  return () => {
    initialized ??= initChatModel(name).then(
      (model) => model as unknown as T,
      (error: unknown) => {
        throw new ThreadwiseConfigError(
          option,
          `LangChain's initChatModel could not make a chat model of ${JSON.stringify(name)}: ${error instanceof Error ? error.message : String(error)} (give "provider:model" with the provider's package installed, e.g. "openai:gpt-4o-mini" with @langchain/openai, or pass a chat model object)`,
          { cause: error },
        );
      },
    );
    return initialized;
  };
}
