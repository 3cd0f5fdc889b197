// pyctx_web.jsbridge: the helpers around the one dispatcher proxy (a function of it).
(dispatch) => {
  const isDeferred = Symbol("pyctx_web.deferred");
  const microtask = globalThis.queueMicrotask ?? ((job) => void Promise.resolve().then(job));
  const destroyAll = (proxies) => {
    for (const proxy of proxies) {
      try {
        proxy.destroy();
      } catch {
        // destroyed already, by the code that received it
      }
    }
  };
  const call = (key, args) => {
    const result = dispatch(key, ...args);
    return result !== null && typeof result === "object" && result[isDeferred]
      ? result.promise
      : result;
  };
  return {
    make: (key) =>
      function (...args) {
        return call(key, args);
      },
    setTimeout: (key, ms) => setTimeout(() => dispatch(key), ms),
    setInterval: (key, ms) => setInterval(() => dispatch(key), ms),
    clearTimeout: (handle) => clearTimeout(handle),
    clearInterval: (handle) => clearInterval(handle),
    queueMicrotask: (key) => microtask(() => dispatch(key)),
    requestAnimationFrame: (key) => requestAnimationFrame((time) => dispatch(key, time)),
    cancelAnimationFrame: (handle) => cancelAnimationFrame(handle),
    listen: (target, type, key, once) => {
      const listener = (event) => dispatch(key, event);
      target.addEventListener(type, listener, { once });
      return listener;
    },
    unlisten: (target, type, listener) => target.removeEventListener(type, listener),
    deferred: () => {
      const out = { [isDeferred]: true };
      out.promise = new Promise((resolve, reject) => {
        // `borrowed`: the PyProxies made for `value`, destroyed once this job's reactions ran.
        out.resolve = (value, borrowed) => {
          resolve(value);
          if (borrowed && borrowed.length) setTimeout(() => destroyAll(borrowed), 0);
        };
        out.reject = reject;
      });
      out.promise.catch(() => {});
      return out;
    },
    error: (name, message) => {
      const error = new Error(message);
      error.name = name;
      return error;
    },
  };
};
