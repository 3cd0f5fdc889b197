// loadPyctxWeb: installs pyctx_web into a Pyodide straight from its wheel.

// The agent server behind a fetch (pyctx_web/_js.py puts the module's text in place of this line).
export { createAgentServerFetch, forwardAgentFetch, serveAgentServer } from "./agentfetch.mjs";

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04]; // "PK\3\4": every wheel is a zip archive
const MAX_UNPACKED_BYTES = 64 * 1024 * 1024; // what a wheel may unpack to, unless raised
// Compressed bytes handed to the inflater at a time: deflate expands them at most about
// 1032 times, so a zip bomb inflates at most about 8 MB past its declared size before it
// is stopped (an inflater expands a whole chunk before its output can be read).
const INFLATE_STEP = 8 * 1024;
const STORED = 0;
const DEFLATED = 8;
const FILE_TYPE = 0o170000; // the type bits of a unix mode
const SYMLINK = 0o120000;
const REGULAR = 0o100000;
const FOLDER = 0o040000;
const O_WRONLY = 1;

/**
 * @import { PyodideAPI } from "pyodide"
 * @typedef {PyodideAPI["FS"]} FileSystem
 * @typedef {{ start: number, end: number }} Range
 *
 * An entry of the wheel's central directory.
 * @typedef {object} Entry
 * @property {string} name
 * @property {Uint8Array} rawName the name's bytes, to compare with the local header's
 * @property {number} flags
 * @property {number} method STORED or DEFLATED (others are refused)
 * @property {number} crc
 * @property {number} compressedSize
 * @property {number} size
 * @property {number} mode a unix mode, or 0
 * @property {number} local where its local header is
 *
 * @typedef {Entry & { range: Range }} PlacedEntry an entry, and where its data lies
 * @typedef {{ name: string, data: Uint8Array }} WheelFile
 * @typedef {Response | ArrayBuffer | ArrayBufferView} WheelBody
 *
 * loadPyctxWeb's options (see there).
 * @typedef {object} LoadOptions
 * @property {string | URL} [wheelURL]
 * @property {WheelBody | Promise<WheelBody>} [wheel]
 * @property {number} [maxUnpackedBytes]
 * @property {string[]} [packages]
 */

/**
 * The wheel's URL, resolved against the page or worker where there is one.
 * @param {string | URL | undefined} wheelURL
 */
function absolute(wheelURL) {
  if (wheelURL === undefined) return "options.wheel";
  try {
    return new URL(wheelURL, globalThis.location?.href).href;
  } catch {
    return String(wheelURL);
  }
}

/**
 * What a thrown value says: an Error's message, or the value as text.
 * @param {unknown} error
 */
function reasonOf(error) {
  const message =
    typeof error === "object" && error !== null && "message" in error ? error.message : undefined;
  return String(message ?? error);
}

/** @param {string} name @param {string} problem */
function entryError(name, problem) {
  return new Error(`the wheel's entry ${JSON.stringify(name)} ${problem}`);
}

// The end-of-central-directory record: the last "PK\5\6" whose comment ends the archive.
/** @param {DataView} view */
function endRecord(view) {
  const last = view.byteLength - 22;
  for (let at = last; at >= 0 && at >= last - 0xffff; at--) {
    if (
      view.getUint32(at, true) === 0x06054b50 &&
      at + 22 + view.getUint16(at + 20, true) === view.byteLength
    ) {
      return at;
    }
  }
  throw new Error("the wheel is not a zip archive: it has no end of central directory");
}

// Where the central directory is and how many entries it lists, for the archives read here.
/** @param {DataView} view */
function centralDirectory(view) {
  const end = endRecord(view);
  const count = view.getUint16(end + 10, true);
  const size = view.getUint32(end + 12, true);
  const offset = view.getUint32(end + 16, true);
  if (
    count === 0xffff ||
    size === 0xffffffff ||
    offset === 0xffffffff ||
    (end >= 20 && view.getUint32(end - 20, true) === 0x07064b50)
  ) {
    throw new Error("the wheel is a zip64 archive, which the loader does not read");
  }
  if (
    view.getUint16(end + 4, true) !== 0 ||
    view.getUint16(end + 6, true) !== 0 ||
    view.getUint16(end + 8, true) !== count
  ) {
    throw new Error("the wheel is a zip archive split over several disks");
  }
  if (offset + size > end) throw new Error("the wheel's central directory runs past its end");
  return { offset, end: offset + size, count };
}

// Each entry as the central directory describes it; dataEnd is where the entries' data must end.
/**
 * @param {Uint8Array} bytes
 * @param {DataView} view
 * @returns {{ entries: Entry[], dataEnd: number }}
 */
function centralEntries(bytes, view) {
  const directory = centralDirectory(view);
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  /** @type {Entry[]} */
  const entries = [];
  let at = directory.offset;
  for (let i = 1; i <= directory.count; i++) {
    const cut = `the wheel's central directory is cut short at entry ${i} of ${directory.count}`;
    if (at + 46 > directory.end || view.getUint32(at, true) !== 0x02014b50) throw new Error(cut);
    const nameLength = view.getUint16(at + 28, true);
    const next =
      at + 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    if (next > directory.end) throw new Error(cut);
    const rawName = bytes.subarray(at + 46, at + 46 + nameLength);
    let name;
    try {
      name = utf8.decode(rawName);
    } catch {
      throw new Error(`the wheel's entry ${i} has a name that is not UTF-8`);
    }
    entries.push({
      name,
      rawName,
      flags: view.getUint16(at + 8, true),
      method: view.getUint16(at + 10, true),
      crc: view.getUint32(at + 16, true),
      compressedSize: view.getUint32(at + 20, true),
      size: view.getUint32(at + 24, true),
      mode: view.getUint32(at + 38, true) >>> 16, // a unix mode, where the archiver put one
      local: view.getUint32(at + 42, true),
    });
    at = next;
  }
  return { entries, dataEnd: directory.offset };
}

// Refuses a name that could land outside the folder the wheel is unpacked in.
/** @param {string} name */
function checkName(name) {
  if (name.includes("\0")) throw entryError(name, "has a NUL character in its name");
  if (name.includes("\\"))
    throw entryError(name, "has a backslash in its name (zip names separate folders with /)");
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name))
    throw entryError(name, "is an absolute path");
  const parts = name.replace(/\/$/, "").split("/");
  if (parts.includes("..")) throw entryError(name, "names a file outside its folder");
  if (parts.some((part) => part === "" || part === ".")) {
    throw entryError(name, 'has an empty or "." folder in its name');
  }
}

// Refuses what is not a plain file or folder, or not stored the way this module reads.
/** @param {Entry} entry */
function checkKind(entry) {
  const { name, mode, method, size } = entry;
  const folder = name.endsWith("/");
  if ((mode & FILE_TYPE) === SYMLINK) throw entryError(name, "is a symbolic link");
  if ((mode & FILE_TYPE) !== 0 && (mode & FILE_TYPE) !== (folder ? FOLDER : REGULAR)) {
    throw entryError(
      name,
      `is not a plain ${folder ? "folder" : "file"} (unix mode 0o${mode.toString(8)})`,
    );
  }
  if (entry.flags & 1) throw entryError(name, "is encrypted");
  if (method !== STORED && method !== DEFLATED) {
    throw entryError(
      name,
      `is compressed with method ${method}: the loader reads stored and deflated entries only`,
    );
  }
  if (method === STORED && entry.compressedSize !== size) {
    throw entryError(name, `declares ${size} bytes but stores ${entry.compressedSize}`);
  }
  if (folder && size !== 0)
    throw entryError(name, `is a folder that declares ${size} bytes of data`);
}

/** @param {Uint8Array} a @param {Uint8Array} b */
function sameBytes(a, b) {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

// Where the entry's data lies, once its local header agrees with the central directory.
/**
 * @param {Uint8Array} bytes
 * @param {DataView} view
 * @param {Entry} entry
 * @param {number} dataEnd
 * @returns {Range}
 */
function dataRange(bytes, view, entry, dataEnd) {
  const { name, local } = entry;
  if (local + 30 > dataEnd || view.getUint32(local, true) !== 0x04034b50) {
    throw entryError(name, "has no local header where the central directory puts it");
  }
  const nameLength = view.getUint16(local + 26, true);
  const start = local + 30 + nameLength + view.getUint16(local + 28, true);
  if (
    start > dataEnd ||
    !sameBytes(bytes.subarray(local + 30, local + 30 + nameLength), entry.rawName)
  ) {
    throw entryError(name, "has a local header that names another file");
  }
  // With bit 3 set, the CRC and sizes follow the data and the local header may hold zeros.
  const deferred = (view.getUint16(local + 6, true) & 8) !== 0;
  /** @type {[string, number, number][]} */
  const fields = [
    ["compression method", view.getUint16(local + 8, true), entry.method],
    ["CRC", view.getUint32(local + 14, true), entry.crc],
    ["compressed size", view.getUint32(local + 18, true), entry.compressedSize],
    ["size", view.getUint32(local + 22, true), entry.size],
  ];
  for (const [field, inLocal, inCentral] of fields) {
    if (inLocal !== inCentral && !(deferred && inLocal === 0 && field !== "compression method")) {
      throw entryError(
        name,
        `has a local header whose ${field} (${inLocal}) is not the central directory's (${inCentral})`,
      );
    }
  }
  if (start + entry.compressedSize > dataEnd)
    throw entryError(name, "runs past the end of the archive's data");
  return { start, end: start + entry.compressedSize };
}

// Refuses entries whose data overlaps another's (one way to make a small archive unpack big).
/** @param {PlacedEntry[]} entries */
function checkOverlaps(entries) {
  const byOffset = [...entries].sort((a, b) => a.local - b.local);
  for (let i = 1; i < byOffset.length; i++) {
    const [before, after] = [byOffset[i - 1], byOffset[i]];
    if (before.range.end > after.local) {
      throw entryError(after.name, `overlaps the entry ${JSON.stringify(before.name)}`);
    }
  }
}

// Refuses a name given twice, and a file that other entries take for a folder.
/** @param {Entry[]} entries */
function checkLayout(entries) {
  const files = new Set();
  const folders = new Set();
  for (const { name } of entries) {
    const parts = name.replace(/\/$/, "").split("/");
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join("/"));
    if (name.endsWith("/")) folders.add(parts.join("/"));
    else if (files.has(name)) throw entryError(name, "appears twice");
    else files.add(name);
  }
  for (const name of files) {
    if (folders.has(name))
      throw entryError(name, "is a file, and other entries name it as their folder");
  }
}

// The entry's data inflated, refused as soon as it inflates past its declared size: the
// compressed data goes in INFLATE_STEP bytes at a time, as the output is read.
/**
 * @param {Entry} entry
 * @param {Uint8Array} data
 */
async function inflate(entry, data) {
  let at = 0;
  /** @type {ReadableStream<Uint8Array<ArrayBuffer>>} */
  const source = new ReadableStream(
    {
      pull(controller) {
        if (at >= data.length) {
          controller.close();
        } else {
          controller.enqueue(data.slice(at, at + INFLATE_STEP));
          at += INFLATE_STEP;
        }
      },
    },
    { highWaterMark: 0 },
  );
  const reader = source.pipeThrough(new DecompressionStream("deflate-raw")).getReader();
  const out = new Uint8Array(entry.size);
  let filled = 0;
  for (;;) {
    let chunk;
    try {
      chunk = await reader.read();
    } catch (error) {
      throw entryError(entry.name, `is not valid deflate data (${reasonOf(error)})`);
    }
    if (chunk.done) break;
    if (filled + chunk.value.length > entry.size) {
      await reader.cancel();
      throw entryError(entry.name, `inflates to more than its declared ${entry.size} bytes`);
    }
    out.set(chunk.value, filled);
    filled += chunk.value.length;
  }
  if (filled !== entry.size)
    throw entryError(entry.name, `inflates to ${filled} bytes, not its declared ${entry.size}`);
  return out;
}

// The wheel's files, [{name, data}], once every entry of its central directory checked out,
// so that a refused wheel writes nothing. Stored entries are views of the wheel's bytes;
// deflated ones are inflated here (Pyodide's unpackArchive checked none of this).
/**
 * @param {Uint8Array} bytes
 * @param {number} maxUnpackedBytes
 * @returns {Promise<WheelFile[]>}
 */
async function wheelFiles(bytes, maxUnpackedBytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { entries: listed, dataEnd } = centralEntries(bytes, view);
  /** @type {PlacedEntry[]} */
  const entries = [];
  let total = 0;
  for (const entry of listed) {
    checkName(entry.name);
    checkKind(entry);
    total += entry.size;
    if (total > maxUnpackedBytes) {
      throw entryError(
        entry.name,
        `takes the wheel past ${maxUnpackedBytes} bytes unpacked (options.maxUnpackedBytes)`,
      );
    }
    entries.push({ ...entry, range: dataRange(bytes, view, entry, dataEnd) });
  }
  checkOverlaps(entries);
  checkLayout(entries);
  const files = [];
  // Folder entries are not written: the folders of the files are made as they are written.
  for (const entry of entries.filter(({ name }) => !name.endsWith("/"))) {
    const data = bytes.subarray(entry.range.start, entry.range.end);
    files.push({
      name: entry.name,
      data: entry.method === STORED ? data : await inflate(entry, data),
    });
  }
  return files;
}

// Refuses, before writing any, a file that would replace a folder of `folder` or need a
// folder where a file is; returns the names of the files that are not there yet.
/**
 * @param {FileSystem} FS
 * @param {WheelFile[]} files
 * @param {string} folder
 * @returns {Set<string>}
 */
function checkDestination(FS, files, folder) {
  // What each path is, once looked up: a lookup of a path that is not there costs a thrown
  // error, and in a fresh site-packages every file's folder is one.
  /** @type {Map<string, "missing" | "folder" | "file">} */
  const kinds = new Map();
  const missing = new Set();
  for (const { name } of files) {
    const parts = name.split("/");
    for (let i = 1; i <= parts.length; i++) {
      const path = `${folder}/${parts.slice(0, i).join("/")}`;
      let kind = kinds.get(path);
      if (kind === undefined) {
        const found = FS.analyzePath(path);
        kind = !found.exists ? "missing" : FS.isDir(found.object.mode) ? "folder" : "file";
        kinds.set(path, kind);
      }
      if (kind === "missing") {
        missing.add(name); // nor is anything in it
        break;
      }
      const isFolder = kind === "folder";
      if (i === parts.length && isFolder)
        throw entryError(name, `would replace the folder ${path}`);
      if (i < parts.length && !isFolder)
        throw entryError(name, `needs a folder where the file ${path} is`);
    }
  }
  return missing;
}

/**
 * A file that is not there yet, made in the folder node `folder` by that folder's own file
 * system, as FS.mknod does once its checks passed: FS.writeFile looks the path up twice
 * first, and each lookup of a path that is not there costs a thrown error (in a fresh
 * worker that is most of the time the wheel takes to write). The mode is FS.writeFile's.
 * @param {FileSystem} FS
 * @param {any} folder the folder's FSNode
 * @param {string} name
 * @param {Uint8Array} data
 */
function createFile(FS, folder, name, data) {
  const node = folder.node_ops.mknod(folder, name, REGULAR | 0o666, 0);
  const stream = FS.open(node, O_WRONLY);
  try {
    FS.write(stream, data, 0, data.length, 0);
  } finally {
    FS.close(stream);
  }
}

// Unpacks the wheel into site-packages: every entry is checked first, then each file is
// written (made in its folder when it is not there yet), several times faster than
// pyodide.unpackArchive (Python's zipfile).
/**
 * @param {PyodideAPI} pyodide
 * @param {Uint8Array} bytes
 * @param {string} folder
 * @param {number} maxUnpackedBytes
 */
async function unpack(pyodide, bytes, folder, maxUnpackedBytes) {
  const { FS } = pyodide;
  const files = await wheelFiles(bytes, maxUnpackedBytes);
  const missing = checkDestination(FS, files, folder);
  // Each folder is made once: mkdirTree walks every part of the path again, and each part
  // that exists costs it a thrown error.
  /** @type {Map<string, any>} */
  const folders = new Map();
  for (const { name, data } of files) {
    const path = `${folder}/${name}`;
    const parent = path.slice(0, path.lastIndexOf("/"));
    let node = folders.get(parent);
    if (node === undefined) {
      FS.mkdirTree(parent);
      node = FS.lookupPath(parent).node;
      folders.set(parent, node);
    }
    if (missing.has(name)) createFile(FS, node, path.slice(parent.length + 1), data);
    else FS.writeFile(path, data); // replaces the file there
  }
}

// The Pyodides this module gave pyctx_web to (loaded or resumed): pyctx_web imported in any
// other was imported before this realm knew it, from a memory snapshot.
const given = new WeakSet();

/**
 * @param {string} url
 * @param {LoadOptions["wheel"]} wheel
 * @returns {Promise<Uint8Array>}
 */
async function wheelBytes(url, wheel) {
  let body;
  try {
    body = await (wheel ?? fetch(url));
  } catch (error) {
    throw new Error(`loadPyctxWeb: could not fetch the pyctx_web wheel ${url}: ${reasonOf(error)}`);
  }
  if (typeof Response === "function" && body instanceof Response) {
    if (!body.ok) {
      const status = `${body.status} ${body.statusText}`.trim();
      throw new Error(`loadPyctxWeb: could not fetch the pyctx_web wheel ${url}: HTTP ${status}`);
    }
    return new Uint8Array(await body.arrayBuffer());
  }
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body))
    return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError(
    "loadPyctxWeb: options.wheel must be a Response, an ArrayBuffer or a typed array (or a promise of one)",
  );
}

/**
 * Loads `packages` of the distribution's pyodide-lock.json, with their dependencies. Pyodide's
 * loadPackage only reports a wheel it could not fetch to its errorCallback (and micropip.install
 * then returns as if it had installed it): here that rejects, naming the packages and the error.
 * @param {PyodideAPI} pyodide
 * @param {string[]} packages
 */
async function loadPackages(pyodide, packages) {
  if (packages.length === 0) return;
  /** @type {string[]} */
  const errors = [];
  try {
    await pyodide.loadPackage(packages, {
      messageCallback: () => {},
      errorCallback: (message) => errors.push(message.trim()),
    });
  } catch (error) {
    errors.push(reasonOf(error));
  }
  if (errors.length > 0) {
    const names = packages.join(", ");
    throw new Error(`loadPyctxWeb: could not load the packages ${names}: ${errors.join(" ")}`);
  }
}

/**
 * Installs pyctx_web into `pyodide` from its wheel and resolves with pyctx_web's version
 * once `import pyctx_web` works.
 *
 * The wheel is unpacked into site-packages by this module, without Pyodide's package
 * loader or micropip, and this module is registered as the Pyodide JS module
 * `pyctx_web_js`, so that pyctx_web needs no eval under a Content-Security-Policy.
 * Stored entries (all of pyctx_web's bytecode wheel) are written as they are; deflated
 * ones are inflated with `DecompressionStream`.
 *
 * Every entry of the wheel's central directory is checked before any file is written, so
 * a refused wheel writes nothing: a name outside site-packages (`..`, an absolute path, a
 * drive letter, a backslash), a symbolic link or other non-plain file, a size that lies
 * (a local header that disagrees with the central directory, data that inflates to more
 * or less than the declared size: inflating stops as soon as it passes it), and a wheel
 * that unpacks to more than `maxUnpackedBytes` in all.
 *
 * options.wheelURL: where the wheel is (relative to the page or worker).
 * options.wheel: the wheel already requested, to download it while Pyodide loads: a
 *   Response, an ArrayBuffer or a typed array, or a promise of one; wheelURL then only
 *   names it in errors.
 * options.maxUnpackedBytes: the most the wheel's files may add up to, unpacked
 *   (default 64 MB, 67108864 bytes; pyctx_web's wheels unpack to about 1 MB).
 * options.packages: names of packages in the distribution's pyodide-lock.json to load too,
 *   with their dependencies, while the wheel downloads (such as "langchain-openai", whose
 *   wheels build/dist has: README). Rejects, naming them and the error, when one of them or
 *   of their dependencies cannot be loaded (not in the lock file, or its wheel not fetched).
 *
 * In a Pyodide restored from a memory snapshot that had imported pyctx_web already, it
 * also calls `pyctx_web.after_restore()` (unless `resumePyctxWeb` did), so that each
 * restored copy draws its own random state; the wheel is unpacked again for the modules
 * the snapshot had not imported. Calling it again on the same Pyodide reseeds nothing.
 *
 * Rejects with an Error naming the URL and the HTTP status when the wheel cannot be
 * fetched, when what came is not a wheel, and naming the URL, the entry and the problem
 * when an entry of the wheel is refused.
 *
 * @param {PyodideAPI} pyodide
 * @param {LoadOptions} [options]
 * @returns {Promise<string>}
 */
export async function loadPyctxWeb(
  pyodide,
  { wheelURL, wheel, maxUnpackedBytes = MAX_UNPACKED_BYTES, packages = [] } = {},
) {
  if (
    !pyodide ||
    typeof pyodide.unpackArchive !== "function" ||
    typeof pyodide.runPython !== "function"
  ) {
    throw new TypeError(
      "loadPyctxWeb: the first argument must be the Pyodide that loadPyodide() resolved with",
    );
  }
  if (wheel === undefined && !(typeof wheelURL === "string" || wheelURL instanceof URL)) {
    throw new TypeError(
      "loadPyctxWeb: options.wheelURL must be the wheel's URL (a string or a URL)",
    );
  }
  if (!Number.isSafeInteger(maxUnpackedBytes) || maxUnpackedBytes <= 0) {
    throw new TypeError(
      "loadPyctxWeb: options.maxUnpackedBytes must be a positive whole number of bytes",
    );
  }
  if (!Array.isArray(packages) || packages.some((name) => typeof name !== "string")) {
    throw new TypeError("loadPyctxWeb: options.packages must be an array of package names");
  }
  const url = absolute(wheelURL);
  const [bytes, jsModule] = await Promise.all([
    wheelBytes(url, wheel),
    import(import.meta.url),
    loadPackages(pyodide, packages),
  ]);
  if (bytes.length < 4 || ZIP_MAGIC.some((byte, i) => bytes[i] !== byte)) {
    throw new Error(`loadPyctxWeb: ${url} is not a wheel (not a zip archive)`);
  }
  pyodide.registerJsModule("pyctx_web_js", jsModule);
  // Python is reached through proxies, not runPython: in a Pyodide just started (or restored
  // from a snapshot) parsing a snippet costs more than all of these calls.
  /** @type {{ destroy(): void }[]} */
  const proxies = [];
  /**
   * @param {any} proxy a PyProxy, or a value Python gave as a JavaScript one
   * @returns {any}
   */
  const own = (proxy) => {
    if (proxy && typeof proxy.destroy === "function") proxies.push(proxy);
    return proxy;
  };
  try {
    const sys = own(pyodide.pyimport("sys"));
    const sitePackages = own(sys.path)
      .toJs()
      .find((/** @type {string} */ folder) => folder.endsWith("/site-packages"));
    if (!sitePackages) throw new Error("sys.path names no site-packages folder");
    await unpack(pyodide, bytes, sitePackages, maxUnpackedBytes);
    // Only site-packages changed: refresh its finder's listing. importlib.invalidate_caches()
    // would do it too, but it imports importlib.metadata (and email) to reset that finder.
    own(own(sys.path_importer_cache).get(sitePackages))?.invalidate_caches();
    // pyctx_web imported, but not by this module: this Pyodide was restored from a memory
    // snapshot taken after importing it, whose random state every copy would otherwise repeat.
    const restored = !given.has(pyodide) && own(sys.modules).has("pyctx_web");
    const pyctxWeb = own(pyodide.pyimport("pyctx_web"));
    if (restored) pyctxWeb.after_restore();
    given.add(pyodide);
    return pyctxWeb.__version__;
  } catch (error) {
    const reason = reasonOf(error).trim().split("\n").pop();
    throw new Error(`loadPyctxWeb: ${url} did not install pyctx_web: ${reason}`);
  } finally {
    for (const proxy of proxies) proxy.destroy();
  }
}

/**
 * Makes pyctx_web usable at once in a Pyodide restored from a memory snapshot that had
 * imported every pyctx_web module: registers this module as `pyctx_web_js`, calls
 * `pyctx_web.after_restore()` and returns pyctx_web's version. The snapshot holds memory,
 * not files: call `loadPyctxWeb` afterwards, which writes the package's files again.
 *
 * Throws an Error when pyctx_web is not imported in this Pyodide.
 *
 * @param {PyodideAPI} pyodide
 * @returns {Promise<string>}
 */
export async function resumePyctxWeb(pyodide) {
  const sys = pyodide.pyimport("sys");
  const modules = sys.modules;
  try {
    if (!modules.has("pyctx_web")) {
      throw new Error("resumePyctxWeb: this Pyodide has not imported pyctx_web; use loadPyctxWeb");
    }
    pyodide.registerJsModule("pyctx_web_js", await import(import.meta.url));
    const pyctxWeb = modules.get("pyctx_web");
    try {
      if (!given.has(pyodide)) pyctxWeb.after_restore();
      given.add(pyodide);
      return pyctxWeb.__version__;
    } finally {
      pyctxWeb.destroy();
    }
  } finally {
    modules.destroy();
    sys.destroy();
  }
}
