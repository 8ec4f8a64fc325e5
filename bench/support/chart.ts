/**
 * Draws benchmark charts as SVG with vega-lite, rendered in Node (no canvas, no browser).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";

/** Renders a vega-lite spec to an SVG file and returns its path. */
export async function writeChart(path: string, spec: TopLevelSpec): Promise<string> {
  const compiled = compile(spec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: "none" });
  const svg = await view.toSVG();
  view.finalize();
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, svg);
  return path;
}
