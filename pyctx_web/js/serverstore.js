// pyctx_web.server.store_indexeddb: the agent server's threads, runs and events, one
// transaction per operation. A function of the shared IndexedDB helpers (idb.js).
(/** @type {IDBHelpers} */ idb) => {
  /**
   * A thread or run as stored: its key, status and position, and its record as JSON text
   * (which goes back to Python as it is, never parsed here).
   * @typedef {{ seq: number, status: unknown, data: unknown, [field: string]: unknown }} Row
   */
  const KEYS = /** @type {Record<string, string>} */ ({ threads: "thread_id", runs: "run_id" });
  const runRange = (/** @type {string} */ r) => IDBKeyRange.bound([r], [r, []]);
  const dataOf = (/** @type {Row | undefined} */ row) => {
    if (row === undefined) return "null";
    if (typeof row.data !== "string") throw new TypeError("a stored record is not text");
    return row.data;
  };

  /** Creates the stores a database lacks. */
  const upgrade = (/** @type {IDBDatabase} */ db) => {
    for (const name of ["threads", "runs"]) {
      if (!db.objectStoreNames.contains(name)) {
        const store = db.createObjectStore(name, { keyPath: KEYS[name] });
        store.createIndex("by_seq", "seq", { unique: true });
        if (name === "runs") store.createIndex("by_thread", ["thread_id", "seq"]);
      }
    }
    if (!db.objectStoreNames.contains("events")) {
      const events = db.createObjectStore("events", { keyPath: ["run_id", "seq"] });
      events.createIndex("by_id", ["run_id", "event_id"]);
    }
  };

  /**
   * Runs body(store, state) in one transaction over store `name`.
   * @param {IDBConn} conn
   * @param {string} name
   * @param {IDBTransactionMode} mode
   * @param {(store: IDBObjectStore, state: IDBRunState, stop: (o: IDBOutcome) => void,
   *   guard: IDBGuard) => void} body
   */
  const run = (conn, name, mode, body) =>
    idb.run(conn, [name], mode, (tx, state, stop, guard) =>
      body(tx.objectStore(name), state, stop, guard),
    );

  /**
   * Stores `row` (given its position unless it has one) over the stored row with its key.
   * @param {IDBObjectStore} store
   * @param {Row | undefined} found
   * @param {Record<string, unknown>} row
   * @param {IDBGuard} guard
   */
  const place = (store, found, row, guard) => {
    if (found !== undefined) {
      store.put({ ...row, seq: found.seq });
      return;
    }
    const last = store.index("by_seq").openCursor(null, "prev");
    last.onsuccess = guard(() => {
      const cursor = last.result;
      store.put({ ...row, seq: cursor === null ? 1 : Number(cursor.value.seq) + 1 });
    });
  };

  return {
    /** @param {string} name @param {number} version */
    open: (name, version) => idb.open(name, version, upgrade),
    close: idb.close,

    // The record with `key` in store `name` ("threads" or "runs"), or null.
    get: (/** @type {IDBConn} */ conn, /** @type {string} */ name, /** @type {string} */ key) =>
      run(conn, name, "readonly", (os, state, _stop, guard) => {
        const request = os.get(key);
        request.onsuccess = guard(() => {
          const text = dataOf(request.result);
          state.finish = () => text;
        });
      }),

    // The records of store `name` in the order first stored; a thread's runs when `thread`
    // (Python's None arrives as undefined).
    list: (
      /** @type {IDBConn} */ conn,
      /** @type {string} */ name,
      /** @type {string | null | undefined} */ thread,
    ) =>
      run(conn, name, "readonly", (os, state, _stop, guard) => {
        const request =
          thread === null || thread === undefined
            ? os.index("by_seq").getAll()
            : os.index("by_thread").getAll(IDBKeyRange.bound([thread], [thread, []]));
        request.onsuccess = guard(() => {
          const texts = /** @type {Row[]} */ (request.result).map(dataOf);
          state.finish = () => `[${texts.join(",")}]`;
        });
      }),

    // Stores payload {key, thread_id, status, data, only_if, not_if} in store `name`: only if
    // the stored status is one of only_if when that is a list, and never over a stored status
    // in not_if. Resolves with {written, created, stored: the record stored once done, or null}.
    put: (/** @type {IDBConn} */ conn, /** @type {string} */ name, /** @type {string} */ payload) =>
      run(conn, name, "readwrite", (os, state, _stop, guard) => {
        const todo = JSON.parse(payload);
        const request = os.get(todo.key);
        request.onsuccess = guard(() => {
          const found = /** @type {Row | undefined} */ (request.result);
          const allowed =
            (todo.only_if === null || (found && todo.only_if.includes(found.status))) &&
            !(found && (todo.not_if || []).includes(found.status));
          const kept = found === undefined ? "null" : dataOf(found);
          const text = allowed ? todo.data : kept;
          state.finish = () =>
            `{"written":${Boolean(allowed)},"created":${found === undefined},"stored":${text}}`;
          if (!allowed) return;
          /** @type {Record<string, unknown>} */
          const row = { [KEYS[name]]: todo.key, status: todo.status, data: todo.data };
          if (typeof todo.thread_id === "string") row.thread_id = todo.thread_id;
          place(os, found, row, guard);
        });
      }),

    // Deletes the record with `key` from store `name`; resolves with whether there was one.
    remove: (/** @type {IDBConn} */ conn, /** @type {string} */ name, /** @type {string} */ key) =>
      run(conn, name, "readwrite", (os, state, _stop, guard) => {
        const request = os.getKey(key);
        request.onsuccess = guard(() => {
          state.value = request.result !== undefined;
          if (state.value) os.delete(key);
        });
      }),

    // Appends events [[run_id, event_id, name, data]...], each after its run's others.
    append: (/** @type {IDBConn} */ conn, /** @type {string} */ payload) =>
      run(conn, "events", "readwrite", (os, _state, _stop, guard) => {
        /** @type {Map<string, string[][]>} */
        const byRun = new Map();
        for (const event of JSON.parse(payload)) {
          const list = byRun.get(event[0]) || [];
          list.push(event);
          byRun.set(event[0], list);
        }
        for (const [runId, events] of byRun) {
          const last = os.openKeyCursor(runRange(runId), "prev");
          last.onsuccess = guard(() => {
            let seq =
              last.result === null ? 0 : Number(/** @type {unknown[]} */ (last.result.key)[1]);
            for (const [run_id, event_id, name, data] of events) {
              os.put({ run_id, seq: ++seq, event_id, name, data });
            }
          });
        }
      }),

    // The run's events [[event_id, name, data]...] after the one with `last` (all when null;
    // none when the run has no event with that id).
    after: (
      /** @type {IDBConn} */ conn,
      /** @type {string} */ runId,
      /** @type {string | null | undefined} */ last,
    ) =>
      run(conn, "events", "readonly", (os, state, _stop, guard) => {
        state.value = [];
        const read = (/** @type {number} */ seq) => {
          const request = os.getAll(IDBKeyRange.bound([runId, seq], [runId, []], true));
          request.onsuccess = guard(() => {
            state.value = request.result.map((e) => [e.event_id, e.name, e.data]);
          });
        };
        if (last === null || last === undefined) {
          read(0);
          return;
        }
        const found = os.index("by_id").get([runId, last]);
        found.onsuccess = guard(() => {
          if (found.result !== undefined) read(Number(found.result.seq));
        });
      }),

    // Deletes the run's events.
    drop: (/** @type {IDBConn} */ conn, /** @type {string} */ runId) =>
      run(conn, "events", "readwrite", (os) => {
        os.delete(runRange(runId));
      }),

    // The names of the Web Locks held now, as JSON text; "null" where there are no Web Locks.
    held: async () => {
      const locks = globalThis.navigator && globalThis.navigator.locks;
      if (!locks) return "null";
      const state = await locks.query();
      return JSON.stringify((state.held || []).map((lock) => lock.name));
    },
  };
};
