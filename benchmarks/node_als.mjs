// Reference figures: Node's native AsyncLocalStorage run + getStore, in the same units as the Python ones.
import { AsyncLocalStorage } from "node:async_hooks";
import { performance } from "node:perf_hooks";

const quick = process.argv[2] === "1";
const rounds = quick ? 7 : 21;
const number = quick ? 20_000 : 100_000;
const als = new AsyncLocalStorage();
const noop = () => undefined;

function perCall(fn) {
  const start = performance.now();
  for (let i = 0; i < number; i++) fn();
  return ((performance.now() - start) / number) * 1e6; // ns
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const runs = [];
const gets = [];
for (let round = 0; round < rounds; round++) {
  runs.push(perCall(() => als.run(1, noop)));
  gets.push(als.run(1, () => perCall(() => als.getStore())));
}
const sorted = (v) => [...v].sort((a, b) => a - b);
const q = (v, p) => sorted(v)[Math.floor((v.length - 1) * p)];
const row = (name, values) => ({
  name, runtime: `node ${process.versions.node}`, value: median(values), unit: "ns",
  spread: [q(values, 0.25), q(values, 0.75)], baseline: null, baseline_value: null, ratio: null,
  ratio_spread: null, goal: null, met: null, note: "reference: Node's native AsyncLocalStorage",
});
process.stdout.write(JSON.stringify([row("run(store, fn), sync", runs), row("get_store()", gets)]) + "\n");
