// Evaluated by benchmarks/run.py in the benchmark page: the single-slot .finally() polyfill's
// wrong reads under first-in-first-out interleaving, and its speed.
async ([count, quick]) => {
  // The single-slot polyfill: one global current store, restored in the returned promise's finally().
  let current;
  const polyfill = {
    run(store, fn) {
      const previous = current;
      current = store;
      let result;
      try { result = fn(); } catch (e) { current = previous; throw e; }
      if (result && typeof result.then === "function") return result.finally(() => { current = previous; });
      current = previous;
      return result;
    },
    getStore() { return current; },
  };
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  let wrong = 0;
  const ops = [];
  for (let i = 0; i < count; i++) {
    // First in, first out: operation i finishes before operation i + 1.
    ops.push(polyfill.run(i, async () => {
      await sleep(i % 50);
      if (polyfill.getStore() !== i) wrong++;
    }));
  }
  await Promise.all(ops);
  const number = quick ? 20000 : 100000;
  const noop = () => polyfill.getStore();
  const times = [];
  for (let round = 0; round < (quick ? 7 : 21); round++) {
    const start = performance.now();
    for (let i = 0; i < number; i++) polyfill.run(1, noop);
    times.push(((performance.now() - start) / number) * 1e6);
  }
  times.sort((a, b) => a - b);
  return { wrong, count, ns: times[Math.floor(times.length / 2)],
           spread: [times[Math.floor((times.length - 1) / 4)], times[Math.floor((times.length - 1) * 3 / 4)]] };
}
