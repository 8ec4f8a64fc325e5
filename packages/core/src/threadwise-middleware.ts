import { createMiddleware } from "langchain";
import { assembledRequest, type PlacementRequest } from "./view-request.js";

type WrapModelCall = (request: PlacementRequest, handler: (request: PlacementRequest) => unknown) => unknown;

/**
 * LangChain's `createMiddleware`, with one addition (spec R33): every request the middleware hands
 * to the next layer (and finally to the model) is the one core assembled ({@link assembledRequest}),
 * also when the middleware states nothing for the call, or has no `wrapModelCall` at all. So
 * whichever threadwise middlewares are in a stack, in whatever order, the model never receives a
 * stored orphan, a second system message or two turns of one role in a row. Assembly of an already
 * assembled request is an identity check, so stacking several threadwise middlewares costs at
 * most one extra assembly per model call. Same signature and types as `createMiddleware`.
 *
 * @example
 * export const myMemory = () => threadwiseMiddleware({ name: "my/memory", afterAgent: () => undefined });
 */
export const threadwiseMiddleware: typeof createMiddleware = ((config: { wrapModelCall?: WrapModelCall }) => {
  const inner = config.wrapModelCall;
  const wrapModelCall: WrapModelCall = (request, handler) => {
    const next = (r: PlacementRequest) => handler(assembledRequest(r));
    return inner ? inner(request, next) : next(request);
  };
  return createMiddleware({ ...config, wrapModelCall } as never);
}) as never;
