// pyctx_web.graph.IndexedDBCheckpointer: one transaction per operation, run from its own callbacks.
(() => {
  const describe = (v) =>
    v === undefined
      ? "undefined"
      : v === null
        ? "null"
        : typeof v === "object"
          ? Object.prototype.toString.call(v).slice(8, -1)
          : typeof v;
  // Fields pass through when they have the stored type; anything else is described,
  // so that Python can report the record as corrupt.
  const text = (v) => (typeof v === "string" ? v : { corrupt: describe(v) });
  const optionalText = (v) => (v === null ? null : text(v));
  const number = (v) => (typeof v === "number" ? v : { corrupt: describe(v) });
  const failure = (e) => ({
    status: "error",
    name: (e && e.name) || "Error",
    message: (e && e.message) || String(e),
  });
  const BOTH = ["checkpoints", "writes"];
  const threadRange = (t) => IDBKeyRange.bound([t], [t, []]);
  const checkpointRange = (t, c) => IDBKeyRange.bound([t, c], [t, c, []]);
  const checkpointOf = (v) => ({
    seq: number(v.seq),
    checkpoint_id: text(v.checkpoint_id),
    parent_id: optionalText(v.parent_id),
    created_at: text(v.created_at),
    data: text(v.data),
  });
  const writeOf = (w) => ({
    task_id: text(w.task_id),
    kind: text(w.kind),
    seq: number(w.seq),
    data: text(w.data),
  });

  // Runs body(tx, state, stop) in one transaction; resolves with a JSON text once the
  // transaction has completed ({status: "ok", value}) or aborted (the reason).
  const run = (conn, stores, mode, body) =>
    new Promise((resolve) => {
      if (conn.closed) {
        resolve(JSON.stringify({ status: "closed" }));
        return;
      }
      let tx;
      try {
        tx = conn.db.transaction(stores, mode);
      } catch (e) {
        const closed = e && e.name === "InvalidStateError";
        resolve(JSON.stringify(closed ? { status: "closed" } : failure(e)));
        return;
      }
      const state = { value: null, outcome: null };
      const stop = (outcome) => {
        if (state.outcome === null) state.outcome = outcome;
        try {
          tx.abort();
        } catch {
          /* already finished */
        }
      };
      const guard = (fn) => (event) => {
        try {
          fn(event);
        } catch (e) {
          stop(failure(e));
        }
      };
      tx.oncomplete = () =>
        resolve(JSON.stringify(state.outcome || { status: "ok", value: state.value }));
      tx.onabort = () =>
        resolve(
          JSON.stringify(
            state.outcome ||
              failure(tx.error || { name: "AbortError", message: "the transaction was aborted" }),
          ),
        );
      try {
        body(tx, state, stop, guard);
      } catch (e) {
        stop(failure(e));
      }
    });

  // Reads the writes of checkpoint value `v` in transaction `tx`; calls done(record).
  const withWrites = (tx, v, guard, done) => {
    const request = tx.objectStore("writes").getAll(checkpointRange(v.thread_id, v.checkpoint_id));
    request.onsuccess = guard(() =>
      done({
        checkpoint: checkpointOf(v),
        writes: request.result.map(writeOf),
      }),
    );
  };

  return {
    open: (name, version) =>
      new Promise((resolve) => {
        let request;
        try {
          request = indexedDB.open(name, version);
        } catch (e) {
          resolve(JSON.stringify(failure(e)));
          return;
        }
        request.onupgradeneeded = () => {
          const db = request.result;
          if (!db.objectStoreNames.contains("checkpoints")) {
            const store = db.createObjectStore("checkpoints", { keyPath: ["thread_id", "seq"] });
            store.createIndex("by_id", ["thread_id", "checkpoint_id"], { unique: true });
          }
          if (!db.objectStoreNames.contains("writes")) {
            const keyPath = ["thread_id", "checkpoint_id", "task_id", "kind"];
            db.createObjectStore("writes", { keyPath });
          }
        };
        request.onsuccess = () => {
          const conn = { db: request.result, closed: false };
          // Another connection wants a new version or to delete the database: let it.
          conn.db.onversionchange = () => {
            conn.closed = true;
            conn.db.close();
          };
          conn.db.onclose = () => {
            conn.closed = true;
          };
          resolve(conn);
        };
        request.onerror = (event) => {
          event.preventDefault();
          resolve(JSON.stringify(failure(request.error)));
        };
      }),

    close: (conn) => {
      conn.closed = true;
      conn.db.close();
    },

    latest: (conn, t) =>
      run(conn, BOTH, "readonly", (tx, state, stop, guard) => {
        const request = tx.objectStore("checkpoints").openCursor(threadRange(t), "prev");
        request.onsuccess = guard(() => {
          if (!request.result) return;
          withWrites(tx, request.result.value, guard, (r) => {
            state.value = r;
          });
        });
      }),

    byId: (conn, t, c) =>
      run(conn, BOTH, "readonly", (tx, state, stop, guard) => {
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
    page: (conn, t, before, below, count) =>
      run(conn, BOTH, "readonly", (tx, state, stop, guard) => {
        const store = tx.objectStore("checkpoints");
        const records = [];
        state.value = records;
        const scan = (upper) => {
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
          else scan(key.result[1]);
        });
      }),

    put: (conn, payload) =>
      run(conn, ["checkpoints"], "readwrite", (tx, state, stop, guard) => {
        const c = JSON.parse(payload);
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
            c.seq = last.result ? last.result.primaryKey[1] + 1 : 1;
            store.add(c);
          });
        });
      }),

    putWrites: (conn, t, c, payload) =>
      run(conn, BOTH, "readwrite", (tx, state, stop, guard) => {
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

    deleteThread: (conn, t) =>
      run(conn, BOTH, "readwrite", (tx) => {
        tx.objectStore("checkpoints").delete(threadRange(t));
        tx.objectStore("writes").delete(threadRange(t));
      }),
  };
})();
