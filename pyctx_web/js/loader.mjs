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
 * The wheel is unpacked into site-packages with `pyodide.unpackArchive`, without Pyodide's
 * package loader or micropip, and this module is registered as the Pyodide JS module
 * `pyctx_web_js`, so that pyctx_web needs no eval under a Content-Security-Policy.
 *
 * options.wheelURL: where the wheel is (relative to the page or worker).
 * options.wheel: the wheel already requested, to download it while Pyodide loads: a
 *   Response, an ArrayBuffer or a typed array, or a promise of one; wheelURL then only
 *   names it in errors.
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
  // The Python below runs in a namespace of its own: the page's __main__ stays as it was.
  const scope = pyodide.globals.get("dict")();
  try {
    const sitePackages = pyodide.runPython(
      "import sys\nnext(p for p in sys.path if p.endswith('/site-packages'))", { globals: scope });
    pyodide.unpackArchive(bytes, "wheel", { extractDir: sitePackages });
    // Only site-packages changed: refresh its finder's listing. importlib.invalidate_caches()
    // would do it too, but it imports importlib.metadata (and email) to reset that finder.
    return pyodide.runPython(`
finder = sys.path_importer_cache.get(${JSON.stringify(sitePackages)})
if finder is not None:
    finder.invalidate_caches()
import pyctx_web
pyctx_web.__version__
`, { globals: scope });
  } catch (error) {
    const reason = String(error?.message ?? error).trim().split("\n").pop();
    throw new Error(`loadPyctxWeb: ${url} did not install pyctx_web: ${reason}`);
  } finally {
    scope.destroy();
  }
}
