// loadPyctxWeb: installs pyctx_web into a Pyodide straight from its wheel.

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04]; // "PK\3\4": every wheel is a zip archive

// The wheel's URL, resolved against the page or worker where there is one.
function absolute(wheelURL) {
  if (wheelURL === undefined) return "options.wheel";
  try {
    return new URL(wheelURL, globalThis.location?.href).href;
  } catch {
    return String(wheelURL);
  }
}

// The files of a zip archive whose entries are all stored uncompressed, as pyctx_web's
// bytecode wheel is: [{name, data}] from its central directory. null for any other archive
// (compressed entries, zip64, a comment), which Pyodide's own unpacker then handles.
function storedFiles(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = bytes.length - 22; // the end-of-central-directory record, without a comment
  if (end < 0 || view.getUint32(end, true) !== 0x06054b50) return null;
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const names = new TextDecoder();
  const files = [];
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== 0x02014b50) return null;
    const size = view.getUint32(at + 20, true);
    const local = view.getUint32(at + 42, true);
    if (view.getUint16(at + 10, true) !== 0 || local + 30 > bytes.length) return null;
    const nameLength = view.getUint16(at + 28, true);
    const name = names.decode(bytes.subarray(at + 46, at + 46 + nameLength));
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    if (start + size > bytes.length) return null;
    if (!name.endsWith("/")) files.push({ name, data: bytes.subarray(start, start + size) });
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return files;
}

// Unpacks the wheel into site-packages. Stored entries are written as they are, one file
// write each: several times faster than pyodide.unpackArchive, which runs Python's zipfile.
function unpack(pyodide, bytes, folder) {
  const files = storedFiles(bytes);
  if (!files) {
    pyodide.unpackArchive(bytes, "wheel", { extractDir: folder });
    return;
  }
  for (const { name, data } of files) {
    if (name.startsWith("/") || name.split("/").includes("..")) {
      throw new Error(`the wheel names a file outside its folder: ${name}`);
    }
    const path = `${folder}/${name}`;
    pyodide.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    pyodide.FS.writeFile(path, data);
  }
}

// The Pyodides this module gave pyctx_web to (loaded or resumed): pyctx_web imported in any
// other was imported before this realm knew it, from a memory snapshot.
const given = new WeakSet();

async function wheelBytes(url, wheel) {
  let body;
  try {
    body = await (wheel ?? fetch(url));
  } catch (error) {
    throw new Error(`loadPyctxWeb: could not fetch the pyctx_web wheel ${url}: ${error?.message ?? error}`);
  }
  if (typeof Response === "function" && body instanceof Response) {
    if (!body.ok) {
      const status = `${body.status} ${body.statusText}`.trim();
      throw new Error(`loadPyctxWeb: could not fetch the pyctx_web wheel ${url}: HTTP ${status}`);
    }
    return new Uint8Array(await body.arrayBuffer());
  }
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError("loadPyctxWeb: options.wheel must be a Response, an ArrayBuffer or a typed array (or a promise of one)");
}

/**
 * Installs pyctx_web into `pyodide` from its wheel and resolves with pyctx_web's version
 * once `import pyctx_web` works.
 *
 * The wheel is unpacked into site-packages (by this module when its entries are stored
 * uncompressed, as in pyctx_web's bytecode wheel, else with `pyodide.unpackArchive`), without Pyodide's
 * package loader or micropip, and this module is registered as the Pyodide JS module
 * `pyctx_web_js`, so that pyctx_web needs no eval under a Content-Security-Policy.
 *
 * options.wheelURL: where the wheel is (relative to the page or worker).
 * options.wheel: the wheel already requested, to download it while Pyodide loads: a
 *   Response, an ArrayBuffer or a typed array, or a promise of one; wheelURL then only
 *   names it in errors.
 *
 * In a Pyodide restored from a memory snapshot that had imported pyctx_web already, it
 * also calls `pyctx_web.after_restore()` (unless `resumePyctxWeb` did), so that each
 * restored copy draws its own random state; the wheel is unpacked again for the modules
 * the snapshot had not imported. Calling it again on the same Pyodide reseeds nothing.
 *
 * Rejects with an Error naming the URL and the HTTP status when the wheel cannot be
 * fetched, and when what came is not a wheel.
 */
export async function loadPyctxWeb(pyodide, { wheelURL, wheel } = {}) {
  if (!pyodide || typeof pyodide.unpackArchive !== "function" || typeof pyodide.runPython !== "function") {
    throw new TypeError("loadPyctxWeb: the first argument must be the Pyodide that loadPyodide() resolved with");
  }
  if (wheel === undefined && !(typeof wheelURL === "string" || wheelURL instanceof URL)) {
    throw new TypeError("loadPyctxWeb: options.wheelURL must be the wheel's URL (a string or a URL)");
  }
  const url = absolute(wheelURL);
  const [bytes, jsModule] = await Promise.all([wheelBytes(url, wheel), import(import.meta.url)]);
  if (bytes.length < 4 || ZIP_MAGIC.some((byte, i) => bytes[i] !== byte)) {
    throw new Error(`loadPyctxWeb: ${url} is not a wheel (not a zip archive)`);
  }
  pyodide.registerJsModule("pyctx_web_js", jsModule);
  // Python is reached through proxies, not runPython: in a Pyodide just started (or restored
  // from a snapshot) parsing a snippet costs more than all of these calls.
  const proxies = [];
  const own = (proxy) => {
    if (proxy && typeof proxy.destroy === "function") proxies.push(proxy);
    return proxy;
  };
  try {
    const sys = own(pyodide.pyimport("sys"));
    const sitePackages = own(sys.path).toJs().find((folder) => folder.endsWith("/site-packages"));
    if (!sitePackages) throw new Error("sys.path names no site-packages folder");
    unpack(pyodide, bytes, sitePackages);
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
    const reason = String(error?.message ?? error).trim().split("\n").pop();
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
