// What the demo page puts on its window for the end-to-end tests (js/protocol.js).
interface Window {
  __demo: {
    /** The worker now running Python (a new one after a restart). */
    readonly worker: Worker;
    readonly activeThreadId: string | null;
    /** How many times a lost worker was replaced. */
    restarts: number;
    /** The chat events the page acts on (runs, history reads), by type (js/store.js announce). */
    readonly events: EventTarget;
    /** The page's LangGraph SDK Client (js/api.js client). */
    client(): Promise<any>;
    /** A thread's history as stored now, as the page draws it (js/history.js readHistory). */
    history(threadId: string): Promise<Record<string, unknown>>;
  };
}
