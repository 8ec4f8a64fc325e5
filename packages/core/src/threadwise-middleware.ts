import { createMiddleware } from "langchain";
import { refuseSlashedRunsInV1Log } from "./stream-redaction.js";
import { assembledRequest, CONTEXT_PRODUCERS, type PlacementRequest, refuseContextInsideCap, refuseStrayInput } from "./view-request.js";

type WrapModelCall = (request: PlacementRequest, handler: (request: PlacementRequest) => unknown) => unknown;

/**
 * LangChain's `createMiddleware`, with one addition (spec R33): every request the middleware hands
 * to the next layer (and finally to the model) is the one core assembled ({@link assembledRequest}),
 * also when the middleware states nothing for the call, or has no `wrapModelCall` at all. So
 * whichever threadwise middlewares are in a stack, in whatever order, the model never receives a
 * stored orphan, a second system message or two turns of one role in a row; a request that would
 * end on an AI message because the thread ends on stray tool results is refused
 * (`ThreadwiseStrayResultError`). Assembly of an already
 * assembled request is an identity check, so stacking several threadwise middlewares costs at
 * most one extra assembly per model call. Same signature and types as `createMiddleware`.
 *
 * Its nodes (`<name>.before_agent`, ... for each node hook) are named with "/" when its name has
 * one (`threadwise/<x>`): `streamEvents` version "v1" would never end on them, so it is refused when
 * it is about to log one of them ({@link refuseSlashedRunsInV1Log}), with or without hideMemoryState.
 *
 * @throws ThreadwiseConfigError (`streamEvents.version`) ending a `streamEvents` v1 stream that
 *   would log one of its nodes.
 * @example
 * export const myMemory = () => threadwiseMiddleware({ name: "my/memory", afterAgent: () => undefined });
 */
export const threadwiseMiddleware: typeof createMiddleware = ((config: { name?: string; wrapModelCall?: WrapModelCall }) => {
  refuseSlashedRunsInV1Log();
  const inner = config.wrapModelCall;
  // A middleware that adds context refuses to run inside a token cap, which would not count it
  // (core's ARCHITECTURE.md, "Middleware order"): at its first model call, whatever it has to add.
  const producer = config.name !== undefined && CONTEXT_PRODUCERS.has(config.name) ? config.name : undefined;
  const wrapModelCall: WrapModelCall = (request, handler) => {
    if (producer !== undefined) refuseContextInsideCap(request, producer);
    const next = (r: PlacementRequest) => handler(refuseStrayInput(assembledRequest(r)));
    return inner ? inner(request, next) : next(request);
  };
  return createMiddleware({ ...config, wrapModelCall } as never);
}) as never;
