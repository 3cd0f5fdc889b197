// Evaluated by benchmarks/run.py in the benchmark page: the single-slot .finally() polyfill's
// wrong reads under first-in-first-out interleaving, and its speed.
async (/** @type {[number, boolean]} */ [count, quick]) => {
  // The single-slot polyfill: one global current store, restored in the returned promise's finally().
  /** @type {number | undefined} */
  let current;
  const polyfill = {
    /**
     * @param {number} store
     * @param {() => unknown} fn
     */
    run(store, fn) {
      const previous = current;
      current = store;
      let result;
      try {
        result = fn();
      } catch (e) {
        current = previous;
        throw e;
      }
      if (result instanceof Promise)
        return result.finally(() => {
          current = previous;
        });
      current = previous;
      return result;
    },
    getStore() {
      return current;
    },
  };
  const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));
  let wrong = 0;
  const ops = [];
  for (let i = 0; i < count; i++) {
    // First in, first out: operation i finishes before operation i + 1.
    ops.push(
      polyfill.run(i, async () => {
        await sleep(i % 50);
        if (polyfill.getStore() !== i) wrong++;
      }),
    );
  }
  await Promise.all(ops);
  const { batchTimer, clockResolution, quartiles } = window.benchTiming;
  const noop = () => polyfill.getStore();
  const once = batchTimer(() => polyfill.run(1, noop), quick ? 20000 : 100000, clockResolution());
  const times = [];
  for (let round = 0; round < (quick ? 7 : 21); round++) times.push(once() * 1e6);
  const [q1, q2, q3] = quartiles(times);
  return { wrong, count, ns: q2, spread: [q1, q3] };
};
