// Takes the demo worker's memory snapshot, in the browser it will be restored in (see
// tools/snapshot.py): Pyodide with pyctx_web and the demo app imported, nothing started.
// The app folder comes as ?app=/home/pyodide/demo_app; the snapshot is posted back.
import { loadPyodide } from "/pyodide/pyodide.mjs";

/** @param {string} url */
async function bytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`could not fetch ${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

async function take() {
  const appDir = new URL(import.meta.url).searchParams.get("app");
  if (appDir === null) throw new Error("the snapshot worker needs ?app=FOLDER in its URL");
  const base = new URL("/pyodide/", self.location.href).href;
  const lock = await (await fetch(`${base}pyodide-lock.json`)).json();
  const entry = lock.packages["pyctx-web"];
  if (!entry) throw new Error("pyodide-lock.json registers no pyctx-web wheel");
  const pyodide = await loadPyodide({
    indexURL: base,
    packageBaseUrl: base,
    lockFileContents: lock,
    _makeSnapshot: true,
  });
  const [wheel, app] = await Promise.all([bytes(base + entry.file_name), bytes("/app.zip")]);
  const sitePackages = pyodide.runPython(
    "import sys\nnext(p for p in sys.path if p.endswith('/site-packages'))",
  );
  pyodide.unpackArchive(wheel, "wheel", { extractDir: sitePackages });
  pyodide.FS.mkdirTree(appDir);
  pyodide.unpackArchive(app, "zip", { extractDir: appDir });
  // No JavaScript module is registered here: the snapshot may only refer to globals.
  await pyodide.runPythonAsync(`
import sys
for folder in (${JSON.stringify(sitePackages)}, ${JSON.stringify(appDir)}):
    finder = sys.path_importer_cache.get(folder)
    if finder is not None:
        finder.invalidate_caches()
sys.path.insert(0, ${JSON.stringify(appDir)})
import worker_main
await worker_main.preload()
`);
  const snapshot = withoutDeadStack(pyodide, pyodide.makeMemorySnapshot());
  // Samples of the initial memory over two seconds: the words that differ between them (the
  // seed of the C library's random numbers, clock readings) are left out of the delta.
  const samples = [];
  for (let i = 0; i < 3; i++) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, 1100));
    samples.push(await initialMemory(base, lock, snapshot));
  }
  // Only the static data is XORed, not the stack above it, whose start-up leftovers vary.
  const stackEnd = /** @type {any} */ (pyodide)._module._emscripten_stack_get_end();
  return encode(snapshot, samples, stackEnd);
}

// What a worker's memory holds when Pyodide is about to restore `snapshot` into it: the wasm's
// data segments and what its start-up wrote, before the snapshot's bytes replace them.
/**
 * @param {string} base the distribution's URL
 * @param {unknown} lock its lock file
 * @param {Uint8Array} snapshot
 * @returns {Promise<Uint8Array>}
 */
async function initialMemory(base, lock, snapshot) {
  const create = (await import(`${base}pyodide.asm.mjs`)).default;
  /** @type {Uint8Array | null} */
  let memory = null;
  const seen = new Error("initial memory copied");
  try {
    await loadPyodide({
      indexURL: base,
      packageBaseUrl: base,
      lockFileContents: /** @type {any} */ (lock),
      _loadSnapshot: snapshot.slice(),
      /** @param {any} settings */
      createPyodideModule: async (settings) => {
        const module = await create(settings);
        memory = new Uint8Array(module.HEAP8.buffer).slice();
        throw seen; // this Pyodide has served its purpose: it goes no further
      },
    });
  } catch (error) {
    if (error !== seen) throw error;
  }
  if (memory === null) throw new Error("Pyodide made no memory to restore the snapshot into");
  return memory;
}

const DELTA_MAGIC = 0x64786370; // "pcxd", little-endian: a snapshot stored as a delta
// The checksum of the XORed words is FNV-1a over them in order: the restoring worker checks
// with it that its initial memory is the one the delta was taken against.

/**
 * Where the samples of the initial memory differ, as [start, end) byte ranges of whole words.
 * @param {Uint8Array[]} samples
 * @returns {number[][]}
 */
function volatileRanges(samples) {
  const [first, ...others] = samples.map((sample) => new Uint32Array(sample.buffer));
  /** @type {number[][]} */
  const ranges = [];
  for (let i = 0; i < first.length; i++) {
    if (others.every((other) => other[i] === first[i])) continue;
    const last = ranges[ranges.length - 1];
    if (last && last[1] === i * 4) last[1] += 4;
    else ranges.push([i * 4, i * 4 + 4]);
  }
  return ranges;
}

/**
 * The non-zero parts of `memory` as [start, end) byte ranges of whole words, joined across
 * gaps of fewer than GAP_WORDS zero words.
 * @param {Uint8Array} memory
 * @returns {number[][]}
 */
function nonZeroRanges(memory) {
  const words = new Uint32Array(memory.buffer, memory.byteOffset, memory.length >> 2);
  /** @type {number[][]} */
  const ranges = [];
  for (let i = 0; i < words.length; i++) {
    if (words[i] === 0) continue;
    const last = ranges[ranges.length - 1];
    if (last && i * 4 - last[1] < GAP_WORDS * 4) last[1] = i * 4 + 4;
    else ranges.push([i * 4, i * 4 + 4]);
  }
  return ranges;
}

const GAP_WORDS = 1024;

/**
 * The snapshot as demo/worker.js takes it: a header, then Pyodide's snapshot whose memory is
 * XORed with the initial memory wherever that is not zero. The wasm's data segments, which
 * the worker has already, make up most of the memory's first megabytes: XORed, they become
 * zeros, which compress to almost nothing. The header's 32-bit words: DELTA_MAGIC, the number
 * of XORed ranges, the checksum of the initial memory's words in them, the number of volatile
 * ranges (taken as zeros in both), then the start and end of each XORed range, then of each
 * volatile one.
 * @param {Uint8Array} snapshot Pyodide's header, then the memory from the header's offset
 * @param {Uint8Array[]} samples the initial memory, sampled more than once
 * @param {number} limit where XORing stops
 */
function encode(snapshot, samples, limit) {
  const memoryAt = new Uint32Array(snapshot.buffer, snapshot.byteOffset, 2)[1];
  if (memoryAt % 4 !== 0) throw new Error(`the snapshot's memory starts at ${memoryAt}`);
  const volatile = volatileRanges(samples).filter(([start]) => start < limit);
  const initial = samples[0].subarray(0, Math.min(snapshot.length - memoryAt, limit) & ~3);
  for (const [start, end] of volatile) initial.fill(0, start, end);
  const xored = nonZeroRanges(initial);
  const header = [
    DELTA_MAGIC,
    xored.length,
    0,
    volatile.length,
    ...xored.flat(),
    ...volatile.flat(),
  ];
  const at = header.length * 4;
  const out = new Uint8Array(at + snapshot.length);
  out.set(snapshot, at);
  const base = new Uint32Array(initial.buffer, initial.byteOffset, initial.length / 4);
  const memory = new Uint32Array(out.buffer, at + memoryAt, initial.length / 4);
  let hash = 0x811c9dc5;
  for (const [start, end] of xored) {
    for (let i = start / 4; i < end / 4; i++) {
      hash = Math.imul(hash ^ base[i], 16777619);
      memory[i] ^= base[i];
    }
  }
  header[2] = hash >>> 0;
  new Uint32Array(out.buffer, 0, header.length).set(header);
  return out;
}

// The snapshot with the part of the stack below its pointer zeroed: what earlier calls left
// there is dead (taken from JavaScript, the stack holds no frame of C), and zeros compress.
/**
 * @param {import("pyodide").PyodideAPI} pyodide
 * @param {Uint8Array} snapshot Pyodide's header, then the memory from the header's offset
 */
function withoutDeadStack(pyodide, snapshot) {
  const module = /** @type {any} */ (pyodide)._module;
  const memoryAt = new Uint32Array(snapshot.buffer, snapshot.byteOffset, 2)[1];
  // The lowest 16 bytes of the stack hold its overflow cookie, where the build checks one.
  const end = module._emscripten_stack_get_end() + 16;
  const pointer = module._emscripten_stack_get_current();
  if (end < pointer) snapshot.fill(0, memoryAt + end, memoryAt + pointer);
  return snapshot;
}

take().then(
  (snapshot) => postMessage({ snapshot }, [snapshot.buffer]),
  (error) => postMessage({ error: String(error?.message ?? error) }),
);
