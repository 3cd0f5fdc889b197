// pyctx_web.graph.checkpoint: a thread held by one tab at a time, and news of its changes.
(() => {
  const locks = () => (globalThis.navigator && globalThis.navigator.locks) || null;
  /** @type {Map<string, BroadcastChannel>} */
  const channels = new Map();
  return {
    // Resolves with {granted, release}: the Web Lock `name` is held until release() is
    // called. granted is false when another holder has it and `wait` is false. Where
    // there are no Web Locks (Node), it is always granted: nothing else shares the storage.
    /**
     * @param {string} name
     * @param {boolean} wait
     * @returns {Promise<{ granted: boolean, error?: string, release: () => void }>}
     */
    hold: (name, wait) =>
      new Promise((resolve) => {
        const manager = locks();
        if (manager === null) {
          resolve({ granted: true, release: () => {} });
          return;
        }
        manager
          .request(name, { ifAvailable: !wait }, (lock) => {
            if (lock === null) {
              resolve({ granted: false, release: () => {} });
              return undefined;
            }
            return new Promise((/** @type {(value?: undefined) => void} */ release) =>
              resolve({ granted: true, release: () => release() }),
            );
          })
          .catch((e) => resolve({ granted: false, error: String(e), release: () => {} }));
      }),

    // Posts the JSON text `message` on the BroadcastChannel `name`, where there is one. A run
    // posts once per checkpoint: the channel is opened once per name and kept.
    announce: (/** @type {string} */ name, /** @type {string} */ message) => {
      if (typeof BroadcastChannel !== "function") return;
      let channel = channels.get(name);
      if (channel === undefined) {
        channel = new BroadcastChannel(name);
        channels.set(name, channel);
      }
      channel.postMessage(JSON.parse(message));
    },
  };
})();
