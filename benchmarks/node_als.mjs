// Reference figures: Node's native AsyncLocalStorage run + getStore, in the same units as the Python ones.
import { AsyncLocalStorage } from "node:async_hooks";
import { batchTimer, clockResolution, quartiles } from "./page/timing.mjs";

const quick = process.argv[2] === "1";
const rounds = quick ? 7 : 21;
const number = quick ? 20_000 : 100_000;
const als = new AsyncLocalStorage();
const noop = () => undefined;
const resolution = clockResolution();

const runOnce = batchTimer(() => als.run(1, noop), number, resolution);
const getOnce = als.run(1, () => batchTimer(() => als.getStore(), number, resolution));
const runs = [];
const gets = [];
for (let round = 0; round < rounds; round++) {
  runs.push(runOnce() * 1e6); // ns
  gets.push(als.run(1, getOnce) * 1e6);
}
/** @param {string} name @param {number[]} values */
const row = (name, values) => {
  const [q1, q2, q3] = quartiles(values);
  return {
    name,
    runtime: `node ${process.versions.node}`,
    value: q2,
    unit: "ns",
    spread: [q1, q3],
    baseline: null,
    baseline_value: null,
    ratio: null,
    ratio_spread: null,
    goal: null,
    met: null,
    note: "reference: Node's native AsyncLocalStorage",
  };
};
const figures = [row("run(store, fn), sync", runs), row("get_store()", gets)];
const out = {
  runtime: `node ${process.versions.node}`,
  clock_resolution: resolution / 1e3,
  figures,
};
process.stdout.write(JSON.stringify(out) + "\n");
