// pyctx_web.graph.store.indexeddb.IndexedDBStore: one transaction per read or write.
// A function of the shared IndexedDB helpers (idb.js).
(/** @type {IDBHelpers} */ idb) => {
  /**
   * A row as stored: JSON texts for the value and vectors, so no object crosses to Python.
   * @typedef {Record<string, unknown>} StoreRecord
   */
  const ITEMS = "items";
  // The namespace `p` itself, and those under it: "p.x..." sorts from "p." up to "p/".
  const exact = (/** @type {string} */ p) => IDBKeyRange.bound([p], [p, []]);
  const below = (/** @type {string} */ p) => IDBKeyRange.bound([p + "."], [p + "/"], false, true);
  const json = (/** @type {unknown} */ v) => JSON.stringify(v === undefined ? null : v);
  // A record as JSON text; the value and vectors, JSON text already, go in as they are, so
  // a search over many items is parsed once, in Python.
  const recordText = (/** @type {StoreRecord} */ r) =>
    `{"prefix":${json(r.prefix)},"key":${json(r.key)},` +
    `"value":${typeof r.value === "string" ? r.value : "null"},` +
    `"created_at":${json(r.created_at)},"updated_at":${json(r.updated_at)},` +
    `"expires_at":${json(r.expires_at)},"ttl":${json(r.ttl)},` +
    `"vectors":${typeof r.vectors === "string" ? r.vectors : "[]"}}`;

  /**
   * Runs body(store, state) in one transaction over the items.
   * @param {IDBConn} conn
   * @param {IDBTransactionMode} mode
   * @param {(store: IDBObjectStore, state: IDBRunState) => void} body
   */
  const run = (conn, mode, body) =>
    idb.run(conn, [ITEMS], mode, (tx, state) => body(tx.objectStore(ITEMS), state));

  /** Creates the items store a database lacks. */
  const upgrade = (/** @type {IDBDatabase} */ db) => {
    if (!db.objectStoreNames.contains(ITEMS)) {
      db.createObjectStore(ITEMS, { keyPath: ["prefix", "key"] });
    }
  };

  return {
    /** @param {string} name @param {number} version */
    open: (name, version) => idb.open(name, version, upgrade),
    close: idb.close,

    // What a batch reads, in one readonly transaction: {gets: [[prefix, key]...],
    // prefixes: [prefix...], namespaces: bool} -> {rows, under: {prefix: rows}, namespaces}.
    read: (/** @type {IDBConn} */ conn, /** @type {string} */ request) =>
      run(conn, "readonly", (store, state) => {
        const want = JSON.parse(request);
        /** @type {{ rows: string[], under: Record<string, string[]>, namespaces: unknown[] }} */
        const out = { rows: [], under: {}, namespaces: [] };
        state.finish = () =>
          `{"rows":[${out.rows.join(",")}],"under":{` +
          Object.entries(out.under)
            .map(([p, rows]) => `${JSON.stringify(p)}:[${rows.join(",")}]`)
            .join(",") +
          `},"namespaces":${JSON.stringify(out.namespaces)}}`;
        for (const key of want.gets) {
          store.get(key).onsuccess = (event) => {
            const found = /** @type {IDBRequest} */ (event.target).result;
            if (found !== undefined) out.rows.push(recordText(found));
          };
        }
        for (const p of want.prefixes) {
          const rows = (out.under[p] = /** @type {string[]} */ ([]));
          const ranges = p === "" ? [undefined] : [exact(p), below(p)];
          for (const range of ranges) {
            store.getAll(range).onsuccess = (event) => {
              const found = /** @type {StoreRecord[]} */ (
                /** @type {IDBRequest} */ (event.target).result
              );
              for (const record of found) rows.push(recordText(record));
            };
          }
        }
        if (want.namespaces) {
          store.getAll().onsuccess = (event) => {
            const all = /** @type {StoreRecord[]} */ (
              /** @type {IDBRequest} */ (event.target).result
            );
            out.namespaces = all.map((r) => [r.prefix, r.expires_at]);
          };
        }
      }),

    // A batch's writes, all or none: {refresh: [[prefix, key, expires_at]...],
    // deletes: [[prefix, key]...], rows: [record...]}; a replaced row keeps its created_at.
    write: (/** @type {IDBConn} */ conn, /** @type {string} */ payload) =>
      run(conn, "readwrite", (store) => {
        const todo = JSON.parse(payload);
        for (const [prefix, key, expires] of todo.refresh) {
          store.get([prefix, key]).onsuccess = (event) => {
            const found = /** @type {IDBRequest} */ (event.target).result;
            if (found !== undefined) store.put({ ...found, expires_at: expires });
          };
        }
        for (const key of todo.deletes) store.delete(key);
        for (const row of todo.rows) {
          store.get([row.prefix, row.key]).onsuccess = (event) => {
            const found = /** @type {IDBRequest} */ (event.target).result;
            store.put(found === undefined ? row : { ...row, created_at: found.created_at });
          };
        }
      }),

    // Deletes the rows expired at `now`; resolves with how many.
    sweep: (/** @type {IDBConn} */ conn, /** @type {number} */ now) =>
      run(conn, "readwrite", (store, state) => {
        let count = 0;
        store.openCursor().onsuccess = (event) => {
          const cursor = /** @type {IDBCursorWithValue | null} */ (
            /** @type {IDBRequest} */ (event.target).result
          );
          if (cursor === null) return;
          const expires = cursor.value.expires_at;
          if (typeof expires === "number" && expires <= now) {
            cursor.delete();
            state.value = ++count;
          }
          cursor.continue();
        };
        state.value = 0;
      }),
  };
};
