// Timing for the JavaScript reference figures, in Node and in the benchmark page: the same rules
// as benchmarks/stats.py, so that no timed span is shorter than many ticks of performance.now().

const SPAN_TICKS = 200;
const SPAN_FLOOR_MS = 2;

// The clock's observed tick in milliseconds: the median time between two changes of its reading.
export function clockResolution(samples = 21) {
  const ticks = [];
  for (let i = 0; i < samples; i++) {
    const start = performance.now();
    let edge = performance.now();
    while (edge === start) edge = performance.now();
    let after = performance.now();
    while (after === edge) after = performance.now();
    ticks.push(after - edge);
  }
  ticks.sort((a, b) => a - b);
  return ticks[Math.floor(ticks.length / 2)];
}

// Milliseconds per call of fn, over a batch of at least `number` calls that lasts at least
// SPAN_TICKS ticks; the batch size is calibrated on the first call and kept.
/**
 * @param {() => unknown} fn
 * @param {number} number
 * @param {number} resolution the clock's tick in milliseconds
 * @returns {() => number}
 */
export function batchTimer(fn, number, resolution) {
  const target = Math.max(SPAN_FLOOR_MS, SPAN_TICKS * resolution);
  /** @param {number} count */
  const timed = (count) => {
    const start = performance.now();
    for (let i = 0; i < count; i++) fn();
    return performance.now() - start;
  };
  let count = number;
  let elapsed;
  while ((elapsed = timed(count)) < target) {
    const grow = elapsed <= 0 ? 10 : Math.min(10, (1.2 * target) / elapsed);
    count = Math.max(count + 1, Math.floor(count * grow));
  }
  return () => timed(count) / count;
}

// The 25th, 50th and 75th percentiles of values (nearest rank).
/**
 * @param {number[]} values
 * @returns {[number, number, number]}
 */
export function quartiles(values) {
  const s = [...values].sort((a, b) => a - b);
  /** @param {number} p */
  const at = (p) => s[Math.floor((s.length - 1) * p)];
  return [at(0.25), at(0.5), at(0.75)];
}
