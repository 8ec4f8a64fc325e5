import { BenchDataError } from "../../bench/support/data-file.js";

/** The `BenchDataError` `load` throws; any other error is thrown on, and a load that succeeds fails the test. */
export function refusal(load: () => unknown): BenchDataError {
  try {
    load();
  } catch (error) {
    if (error instanceof BenchDataError) return error;
    throw error;
  }
  throw new Error("the file was read");
}
