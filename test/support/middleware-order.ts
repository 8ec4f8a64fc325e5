/**
 * The orders core refuses (core's ARCHITECTURE.md, "Middleware order"), applied to a random order
 * of middleware names (the factory names: `windowTrim`, `summarize`, `tokenCap`, ...), so random
 * stacks draw only orders that run:
 * - windowTrim inside summarize is refused: windowTrim goes first of the two;
 * - a producer of context (summarize, factRecall, workMemory, recall, historyAware, userMemory)
 *   inside tokenCap is refused: tokenCap moves to just after the last producer.
 * Every other relative order is kept. Returns the same array, reordered in place.
 */
const PRODUCERS = new Set(["summarize", "factRecall", "workMemory", "recall", "historyAware", "userMemory"]);

export function inAcceptedOrder<T extends string>(order: T[]): T[] {
  const w = order.indexOf("windowTrim" as T);
  const s = order.indexOf("summarize" as T);
  if (w > s && s !== -1) [order[w], order[s]] = [order[s] as T, order[w] as T];
  const c = order.indexOf("tokenCap" as T);
  if (c !== -1) {
    let last = -1;
    order.forEach((name, i) => {
      if (PRODUCERS.has(name)) last = i;
    });
    if (last > c) {
      order.splice(c, 1);
      order.splice(last, 0, "tokenCap" as T);
    }
  }
  return order;
}
