// pyctx_web.jsbridge: the helpers around the one dispatcher proxy (a function of it).
(/** @type {(key: number, ...args: unknown[]) => unknown} */ dispatch) => {
  const isDeferred = Symbol("pyctx_web.deferred");
  const microtask =
    globalThis.queueMicrotask ??
    ((/** @type {() => void} */ job) => void Promise.resolve().then(job));
  const destroyAll = (/** @type {{ destroy(): void }[]} */ proxies) => {
    for (const proxy of proxies) {
      try {
        proxy.destroy();
      } catch {
        // destroyed already, by the code that received it
      }
    }
  };
  /** @param {number} key @param {unknown[]} args */
  const call = (key, args) => {
    const result = /** @type {{ [isDeferred]?: true, promise?: unknown }} */ (
      dispatch(key, ...args)
    );
    return result !== null && typeof result === "object" && result[isDeferred]
      ? result.promise
      : result;
  };
  /** @typedef {Parameters<typeof clearTimeout>[0]} TimerHandle */
  return {
    make: (/** @type {number} */ key) =>
      /** @param {unknown[]} args */
      function (...args) {
        return call(key, args);
      },
    setTimeout: (/** @type {number} */ key, /** @type {number} */ ms) =>
      setTimeout(() => dispatch(key), ms),
    setInterval: (/** @type {number} */ key, /** @type {number} */ ms) =>
      setInterval(() => dispatch(key), ms),
    clearTimeout: (/** @type {TimerHandle} */ handle) => clearTimeout(handle),
    clearInterval: (/** @type {TimerHandle} */ handle) => clearInterval(handle),
    queueMicrotask: (/** @type {number} */ key) => microtask(() => dispatch(key)),
    requestAnimationFrame: (/** @type {number} */ key) =>
      requestAnimationFrame((time) => dispatch(key, time)),
    cancelAnimationFrame: (/** @type {number} */ handle) => cancelAnimationFrame(handle),
    /**
     * @param {EventTarget} target
     * @param {string} type
     * @param {number} key
     * @param {boolean} once
     */
    listen: (target, type, key, once) => {
      const listener = (/** @type {Event} */ event) => dispatch(key, event);
      target.addEventListener(type, listener, { once });
      return listener;
    },
    /**
     * @param {EventTarget} target
     * @param {string} type
     * @param {EventListener} listener
     */
    unlisten: (target, type, listener) => target.removeEventListener(type, listener),
    // A promise that Python settles: what dispatch returns for a callback run as a task.
    deferred: () => {
      /** @type {(value: unknown) => void} */
      let settle = () => {};
      /** @type {(reason: unknown) => void} */
      let fail = () => {};
      const promise = new Promise((resolve, reject) => {
        settle = resolve;
        fail = reject;
      });
      promise.catch(() => {});
      return {
        [isDeferred]: true,
        promise,
        // `borrowed`: the PyProxies made for `value`, destroyed once this job's reactions ran.
        /** @param {unknown} value @param {{ destroy(): void }[]} [borrowed] */
        resolve: (value, borrowed) => {
          settle(value);
          if (borrowed && borrowed.length) setTimeout(() => destroyAll(borrowed), 0);
        },
        reject: fail,
      };
    },
    /** @param {string} name @param {string} message */
    error: (name, message) => {
      const error = new Error(message);
      error.name = name;
      return error;
    },
  };
};
