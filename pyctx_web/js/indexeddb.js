// pyctx_web.graph.IndexedDBCheckpointer: one transaction per operation, run from its own callbacks.
// A function of the shared IndexedDB helpers (idb.js).
(/** @type {IDBHelpers} */ idb) => {
  /**
   * A record as stored, which may be anything once another program wrote to the database.
   * @typedef {Record<string, unknown>} IDBStored
   */
  const describe = (/** @type {unknown} */ v) =>
    v === undefined
      ? "undefined"
      : v === null
        ? "null"
        : typeof v === "object"
          ? Object.prototype.toString.call(v).slice(8, -1)
          : typeof v;
  // Fields pass through when they have the stored type; anything else is described,
  // so that Python can report the record as corrupt.
  const text = (/** @type {unknown} */ v) => (typeof v === "string" ? v : { corrupt: describe(v) });
  const optionalText = (/** @type {unknown} */ v) => (v === null ? null : text(v));
  const number = (/** @type {unknown} */ v) =>
    typeof v === "number" ? v : { corrupt: describe(v) };
  const BOTH = ["checkpoints", "writes"];
  const threadRange = (/** @type {unknown} */ t) => IDBKeyRange.bound([t], [t, []]);
  /** @param {unknown} t @param {unknown} c */
  const checkpointRange = (t, c) => IDBKeyRange.bound([t, c], [t, c, []]);
  const checkpointOf = (/** @type {IDBStored} */ v) => ({
    seq: number(v.seq),
    checkpoint_id: text(v.checkpoint_id),
    parent_id: optionalText(v.parent_id),
    created_at: text(v.created_at),
    data: text(v.data),
  });
  const writeOf = (/** @type {IDBStored} */ w) => ({
    task_id: text(w.task_id),
    kind: text(w.kind),
    seq: number(w.seq),
    data: text(w.data),
  });

  // Reads the writes of checkpoint value `v` in transaction `tx`; calls done(record).
  /**
   * @param {IDBTransaction} tx
   * @param {IDBStored} v
   * @param {IDBGuard} guard
   * @param {(record: unknown) => void} done
   */
  const withWrites = (tx, v, guard, done) => {
    const request = tx.objectStore("writes").getAll(checkpointRange(v.thread_id, v.checkpoint_id));
    request.onsuccess = guard(() =>
      done({
        checkpoint: checkpointOf(v),
        writes: request.result.map(writeOf),
      }),
    );
  };

  // Stores the first writes of a checkpoint that has none yet: numbered in order, a later
  // write of the same (task, kind) replacing an earlier one in its place.
  /**
   * @param {IDBObjectStore} store the writes store
   * @param {string} t @param {string} c
   * @param {[string, string, string][]} writes
   */
  const addWrites = (store, t, c, writes) => {
    const seqs = new Map();
    for (const [task_id, kind, data] of writes) {
      const pair = JSON.stringify([task_id, kind]);
      let seq = seqs.get(pair);
      if (seq === undefined) {
        seq = seqs.size + 1;
        seqs.set(pair, seq);
      }
      store.put({ thread_id: t, checkpoint_id: c, task_id, kind, seq, data });
    }
  };

  /** Creates the checkpoints and writes stores a database lacks. */
  const upgrade = (/** @type {IDBDatabase} */ db) => {
    if (!db.objectStoreNames.contains("checkpoints")) {
      const store = db.createObjectStore("checkpoints", { keyPath: ["thread_id", "seq"] });
      store.createIndex("by_id", ["thread_id", "checkpoint_id"], { unique: true });
    }
    if (!db.objectStoreNames.contains("writes")) {
      const keyPath = ["thread_id", "checkpoint_id", "task_id", "kind"];
      db.createObjectStore("writes", { keyPath });
    }
  };

  return {
    /** @param {string} name @param {number} version */
    open: (name, version) => idb.open(name, version, upgrade),
    close: idb.close,

    latest: (/** @type {IDBConn} */ conn, /** @type {string} */ t) =>
      idb.run(conn, BOTH, "readonly", (tx, state, stop, guard) => {
        const request = tx.objectStore("checkpoints").openCursor(threadRange(t), "prev");
        request.onsuccess = guard(() => {
          if (!request.result) return;
          withWrites(tx, request.result.value, guard, (r) => {
            state.value = r;
          });
        });
      }),

    /** @param {IDBConn} conn @param {string} t @param {string} c */
    byId: (conn, t, c) =>
      idb.run(conn, BOTH, "readonly", (tx, state, stop, guard) => {
        const request = tx.objectStore("checkpoints").index("by_id").get([t, c]);
        request.onsuccess = guard(() => {
          if (request.result === undefined) return;
          withWrites(tx, request.result, guard, (r) => {
            state.value = r;
          });
        });
      }),

    // Up to `count` checkpoints newest first, below `before` (an id) or `below` (a seq);
    // Python's None arrives as undefined.
    /**
     * @param {IDBConn} conn
     * @param {string} t
     * @param {string | undefined} before
     * @param {number | undefined} below
     * @param {number} count
     */
    page: (conn, t, before, below, count) =>
      idb.run(conn, BOTH, "readonly", (tx, state, stop, guard) => {
        const store = tx.objectStore("checkpoints");
        /** @type {unknown[]} */
        const records = [];
        state.value = records;
        const scan = (/** @type {number | undefined} */ upper) => {
          const range =
            upper == null ? threadRange(t) : IDBKeyRange.bound([t], [t, upper], false, true);
          const request = store.openCursor(range, "prev");
          request.onsuccess = guard(() => {
            const cursor = request.result;
            if (!cursor) return;
            const index = records.length;
            records.push(null);
            withWrites(tx, cursor.value, guard, (r) => {
              records[index] = r;
            });
            if (records.length < count) cursor.continue();
          });
        };
        if (before == null) {
          scan(below);
          return;
        }
        const key = store.index("by_id").getKey([t, before]);
        key.onsuccess = guard(() => {
          if (key.result === undefined) stop({ status: "missing" });
          else scan(/** @type {[string, number]} */ (key.result)[1]); // [thread, seq]
        });
      }),

    // A new checkpoint, with the pending writes it is made with (`writes`, maybe none): one
    // transaction, so that the checkpoint is never stored without them.
    put: (/** @type {IDBConn} */ conn, /** @type {string} */ payload) => {
      const c = JSON.parse(payload);
      /** @type {[string, string, string][]} */
      const writes = c.writes ?? [];
      delete c.writes;
      return idb.run(
        conn,
        writes.length ? BOTH : ["checkpoints"],
        "readwrite",
        (tx, state, stop, guard) => {
          const store = tx.objectStore("checkpoints");
          const existing = store.index("by_id").getKey([c.thread_id, c.checkpoint_id]);
          existing.onsuccess = guard(() => {
            if (existing.result !== undefined) {
              stop({ status: "duplicate" });
              return;
            }
            const last = store.openCursor(threadRange(c.thread_id), "prev");
            last.onsuccess = guard(() => {
              // Compare-and-set in this transaction: only on top of the latest the writer saw.
              const latest = last.result ? last.result.value.checkpoint_id : null;
              if (latest !== (c.expected ?? null)) {
                stop({ status: "busy" });
                return;
              }
              delete c.expected;
              const key = /** @type {[string, number] | undefined} */ (last.result?.primaryKey);
              c.seq = key ? key[1] + 1 : 1;
              store.add(c);
              if (writes.length)
                addWrites(tx.objectStore("writes"), c.thread_id, c.checkpoint_id, writes);
            });
          });
        },
      );
    },

    /** @param {IDBConn} conn @param {string} t @param {string} c @param {string} payload */
    putWrites: (conn, t, c, payload) =>
      idb.run(conn, BOTH, "readwrite", (tx, state, stop, guard) => {
        const writes = JSON.parse(payload);
        const exists = tx.objectStore("checkpoints").index("by_id").getKey([t, c]);
        exists.onsuccess = guard(() => {
          if (exists.result === undefined) {
            stop({ status: "missing" });
            return;
          }
          const store = tx.objectStore("writes");
          const current = store.getAll(checkpointRange(t, c));
          current.onsuccess = guard(() => {
            const seqs = new Map();
            let last = 0;
            for (const w of current.result) {
              const seq = typeof w.seq === "number" ? w.seq : 0;
              seqs.set(JSON.stringify([w.task_id, w.kind]), seq);
              last = Math.max(last, seq);
            }
            for (const [task_id, kind, data] of writes) {
              const pair = JSON.stringify([task_id, kind]);
              let seq = seqs.get(pair);
              if (seq === undefined) {
                seq = ++last;
                seqs.set(pair, seq);
              }
              store.put({ thread_id: t, checkpoint_id: c, task_id, kind, seq, data });
            }
          });
        });
      }),

    deleteThread: (/** @type {IDBConn} */ conn, /** @type {string} */ t) =>
      idb.run(conn, BOTH, "readwrite", (tx) => {
        tx.objectStore("checkpoints").delete(threadRange(t));
        tx.objectStore("writes").delete(threadRange(t));
      }),
  };
};
