/**
 * The cost bench's tau-bench replay (bench/cost.ts) on runs of another domain: tau-bench's retail
 * tools share four names with the airline ones (`get_user_details`, `calculate`, `think`,
 * `transfer_to_human_agents`), so a retail file must not be read as airline runs and sent the
 * 14 airline schemas.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tauReplay } from "../bench/cost.js";
import { TAU_AIRLINE_PATH } from "../data/paths.js";

const temp = mkdtempSync(join(tmpdir(), "tw-cost-bench-"));
const call = (id: string, name: string, args: Record<string, unknown>) => [
  { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }] },
  { role: "tool", tool_call_id: id, name, content: "{}" },
];
const retail = join(temp, "retail.json");
writeFileSync(
  retail,
  JSON.stringify([
    {
      task_id: 0,
      trial: 0,
      traj: [
        { role: "system", content: "# Retail agent policy" },
        { role: "user", content: "Return the earbuds of order #W981, I'm yara_silva_7567." },
        ...call("c1", "get_user_details", { user_id: "yara_silva_7567" }),
        ...call("c2", "return_delivered_order_items", { order_id: "#W981", item_ids: ["645"], payment_method_id: "paypal_1" }),
        { role: "assistant", content: "The return is requested." },
      ],
    },
  ]),
);

describe("tauReplay", () => {
  it("sends runs of another domain the schemas of the tools they call, none of the airline's", () => {
    const replay = tauReplay(retail);
    expect(replay.name).toBe("tau-bench");
    expect(replay.tools.map((t) => t.function.name).sort()).toEqual(["get_user_details", "return_delivered_order_items"]);
    expect(replay.description).toBe(
      "1 runs, 1 user turns, the recorded policy prompt and 2 tool schemas (2 inferred from the recorded calls)",
    );
  });

  it("refuses runs with no answered user turn, and sends runs without a tool call no schema", () => {
    const runs = (traj: unknown[]) => {
      const path = join(temp, `runs-${traj.length}.json`);
      writeFileSync(path, JSON.stringify([{ task_id: 7, trial: 0, traj: [{ role: "system", content: "policy" }, ...traj] }]));
      return path;
    };
    expect(() => tauReplay(runs([{ role: "user", content: "hello?" }]))).toThrow(
      /not a tau-bench runs file: \(file\): no user turn answered by an assistant message in any run: nothing to replay/,
    );
    const chat = tauReplay(
      runs([
        { role: "user", content: "hours?" },
        { role: "assistant", content: "Around the clock." },
      ]),
    );
    expect(chat.tools).toEqual([]);
    expect(chat.description).toBe("1 runs, 1 user turns, the recorded policy prompt and 0 tool schemas");
  });

  it("sends airline runs tau-bench's 14 airline schemas", () => {
    const slice = join(temp, "airline.json");
    writeFileSync(slice, JSON.stringify((JSON.parse(readFileSync(TAU_AIRLINE_PATH, "utf8")) as unknown[]).slice(0, 3)));
    const replay = tauReplay(slice);
    expect(replay.name).toBe("tau-bench airline");
    expect(replay.tools).toHaveLength(14);
  });
});
