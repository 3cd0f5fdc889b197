// What the demo page puts on its window for the end-to-end tests (js/protocol.js).
interface Window {
  __demo: {
    /** The worker now running Python (a new one after a restart). */
    readonly worker: Worker;
    readonly activeThreadId: string | null;
    /** How many times a lost worker was replaced. */
    restarts: number;
  };
}
