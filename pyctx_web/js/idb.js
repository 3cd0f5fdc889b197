// The IndexedDB connection and transactions that pyctx_web's IndexedDB checkpointer
// (indexeddb.js) and store (idbstore.js) are built on. Each of those files is a function of
// this object that gives its own layout (the upgrade) and operations.
/**
 * An open database; closed for good once `closed` is true.
 * @typedef {{ db: IDBDatabase, closed: boolean }} IDBConn
 * What an operation ends with, as Python reads it: {status: "ok", value}, "error", ...
 * @typedef {{ status: string, [field: string]: unknown }} IDBOutcome
 * An operation's result: `value` goes back as JSON, or as the JSON text `finish()` makes
 * when set; `outcome`, once `stop` has set it, replaces it.
 * @typedef {{ value: unknown, outcome: IDBOutcome | null, finish: (() => string) | null }} IDBRunState
 * Wraps a request callback so that an exception in it stops the transaction with the reason.
 * @typedef {(fn: (event: Event) => void) => (event: Event) => void} IDBGuard
 * @typedef {(tx: IDBTransaction, state: IDBRunState,
 *   stop: (outcome: IDBOutcome) => void, guard: IDBGuard) => void} IDBBody
 * @typedef {{
 *   open: (name: string, version: number, upgrade: (db: IDBDatabase) => void)
 *     => Promise<IDBConn | string>,
 *   close: (conn: IDBConn) => void,
 *   run: (conn: IDBConn, stores: string[], mode: IDBTransactionMode, body: IDBBody)
 *     => Promise<string>,
 *   failure: (e: unknown) => IDBOutcome & { name: string, message: string },
 * }} IDBHelpers
 */
(() => {
  /** @returns {IDBOutcome & { name: string, message: string }} */
  const failure = (/** @type {unknown} */ e) => {
    const fields = /** @type {{ name?: string, message?: string }} */ (Object(e));
    return { status: "error", name: fields.name || "Error", message: fields.message || String(e) };
  };

  /**
   * Opens database `name` at `version`, `upgrade` creating what it lacks.
   * @param {string} name
   * @param {number} version
   * @param {(db: IDBDatabase) => void} upgrade
   * @returns {Promise<IDBConn | string>} the connection, or a failure as JSON text
   */
  const open = (name, version, upgrade) =>
    new Promise((resolve) => {
      /** @type {IDBOpenDBRequest} */
      let request;
      try {
        request = indexedDB.open(name, version);
      } catch (e) {
        resolve(JSON.stringify(failure(e)));
        return;
      }
      request.onupgradeneeded = () => upgrade(request.result);
      request.onsuccess = () => {
        /** @type {IDBConn} */
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
    });

  /**
   * Runs body(tx, state, stop, guard) in one transaction over `stores`; resolves with a JSON
   * text once the transaction has completed ({status: "ok", value}, or the outcome `stop`
   * set) or aborted (the reason), or {status: "closed"} when the connection has closed.
   * @param {IDBConn} conn
   * @param {string[]} stores
   * @param {IDBTransactionMode} mode
   * @param {IDBBody} body
   * @returns {Promise<string>}
   */
  const run = (conn, stores, mode, body) =>
    new Promise((resolve) => {
      if (conn.closed) {
        resolve(JSON.stringify({ status: "closed" }));
        return;
      }
      /** @type {IDBTransaction} */
      let tx;
      try {
        tx = conn.db.transaction(stores, mode);
      } catch (e) {
        const reason = failure(e);
        const closed = reason.name === "InvalidStateError";
        resolve(JSON.stringify(closed ? { status: "closed" } : reason));
        return;
      }
      /** @type {IDBRunState} */
      const state = { value: null, outcome: null, finish: null };
      const stop = (/** @type {IDBOutcome} */ outcome) => {
        if (state.outcome === null) state.outcome = outcome;
        try {
          tx.abort();
        } catch {
          /* already finished */
        }
      };
      /** @type {IDBGuard} */
      const guard = (fn) => (event) => {
        try {
          fn(event);
        } catch (e) {
          stop(failure(e));
        }
      };
      tx.oncomplete = () => {
        if (state.outcome) resolve(JSON.stringify(state.outcome));
        else if (state.finish) resolve(`{"status":"ok","value":${state.finish()}}`);
        else resolve(JSON.stringify({ status: "ok", value: state.value }));
      };
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

  return {
    open,
    run,
    failure,
    close: (/** @type {IDBConn} */ conn) => {
      conn.closed = true;
      conn.db.close();
    },
  };
})();
