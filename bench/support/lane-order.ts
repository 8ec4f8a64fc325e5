/**
 * The order a replay's lanes take their steps in, exchange by exchange (bench/replay-cost.ts).
 *
 * Lanes share one process, and `process.cpuUsage()` bills every thread's CPU to the step that is
 * running: V8 compiles a function on its worker threads while the next steps run, so a step that
 * makes much code hot (a summary step) bills part of its compilation to whichever lane's step comes
 * after it. A lane that always runs right after another lane's summary step pays for it at every
 * summary (bench/README.md, "Replay cost and the archive", session 62 and 63).
 */

/**
 * A balanced set of lane orders (a Williams design): every lane comes at every position equally
 * often, and every lane comes right after every other lane equally often, over the set's rows.
 * `lanes` even: `lanes` rows; odd: twice as many (each row and its reverse). Row 0 of two lanes is
 * `[0, 1]`, row 1 `[1, 0]`.
 * @throws RangeError when `lanes` is not a positive integer.
 */
export function balancedOrders(lanes: number): number[][] {
  if (!Number.isInteger(lanes) || lanes < 1) throw new RangeError(`lanes must be a positive integer, got ${lanes}`);
  // 0, 1, n-1, 2, n-2, ...: consecutive entries differ by every step 1..n-1 once, so each row shifted by r
  // (mod n) puts every lane right after every other lane once over the n rows.
  const first = Array.from({ length: lanes }, (_, k) => (k === 0 ? 0 : k % 2 === 1 ? (k + 1) / 2 : lanes - k / 2));
  const rows = Array.from({ length: lanes }, (_, r) => first.map((lane) => (lane + r) % lanes));
  return lanes % 2 === 0 ? rows : [...rows, ...rows.map((row) => [...row].reverse())];
}

/**
 * The order of the lanes (indexes `0..lanes-1`) at exchange `exchange` (0-based).
 *
 * Balanced (`offset` undefined): row `(exchange mod period + floor(exchange / period)) mod rows` of
 * {@link balancedOrders}: the row moves on by one every exchange and by one more every `period`
 * exchanges, so at each exchange of the period (the summary step, the steps after it) each row comes
 * equally often over `rows` periods: each lane runs first there as often as each other, and right
 * after each other lane as often (with two lanes the step after a lane's summary step is the other
 * lane's in one period, its own next step in the next).
 *
 * Rotated (`offset` a number): the order before session 63, rotated by one every exchange, starting
 * at `offset`: `(exchange + j + offset) mod lanes` for position `j`. With an even period and two
 * lanes the same lane runs first at every summary step (offset 0: lane 0).
 * @throws RangeError when `lanes` or `period` is not a positive integer.
 */
export function laneOrder(lanes: number, exchange: number, period: number, offset?: number): number[] {
  if (!Number.isInteger(period) || period < 1) throw new RangeError(`period must be a positive integer, got ${period}`);
  if (offset !== undefined) {
    if (!Number.isInteger(lanes) || lanes < 1) throw new RangeError(`lanes must be a positive integer, got ${lanes}`);
    return Array.from({ length: lanes }, (_, j) => (((exchange + j + offset) % lanes) + lanes) % lanes);
  }
  const rows = balancedOrders(lanes);
  return rows[((exchange % period) + Math.floor(exchange / period)) % rows.length] as number[];
}
