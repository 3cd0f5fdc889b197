// Compiles Python to bytecode with Pyodide's own CPython, in Node (see tools/bytecode.py).
// usage: node tools/bytecode.mjs PYODIDE_DIR stdlib STOCK_ZIP OUT_ZIP
//        node tools/bytecode.mjs PYODIDE_DIR wheel WHEEL OUT_DIR   (prints the new wheel's path)
//        node tools/bytecode.mjs PYODIDE_DIR folder SRC_DIR OUT_ZIP MOUNT_DIR
//          (SRC_DIR's modules, compiled for a folder at MOUNT_DIR on sys.path)
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const [dir, kind, input, output, mount] = process.argv.slice(2);
if (!["stdlib", "wheel", "folder"].includes(kind) || !output || (kind === "folder" && !mount)) {
  console.error(
    "usage: node tools/bytecode.mjs PYODIDE_DIR (stdlib STOCK_ZIP OUT_ZIP | wheel WHEEL OUT_DIR | folder SRC_DIR OUT_ZIP MOUNT_DIR)",
  );
  process.exit(2);
}
const indexURL = resolve(dir) + "/";
/** @type {typeof import("pyodide")} */
const { loadPyodide } = await import(pathToFileURL(indexURL + "pyodide.mjs").href);
const pyodide = await loadPyodide({
  indexURL,
  stdout: () => {},
  stderr: (line) => console.error(line),
});
const { info } = JSON.parse(readFileSync(indexURL + "pyodide-lock.json", "utf8"));

const work = "/tmp/bytecode";
pyodide.FS.mkdirTree(work);
const here = dirname(fileURLToPath(import.meta.url));
pyodide.FS.writeFile(`${work}/bytecode.py`, readFileSync(join(here, "bytecode.py")));
if (kind === "folder") {
  pyodide.FS.mkdirTree(`${work}/input`);
  for (const name of readdirSync(input).filter((file) => file.endsWith(".py"))) {
    pyodide.FS.writeFile(`${work}/input/${name}`, readFileSync(join(input, name)));
  }
  pyodide.globals.set("mount", mount.replace(/\/*$/, "/"));
} else {
  pyodide.FS.writeFile(`${work}/input`, readFileSync(input));
}
pyodide.globals.set("kind", kind);
pyodide.globals.set("filename", basename(input));
pyodide.globals.set("platform", `${info.platform}_${info.arch}`);
const name = pyodide.runPython(`
import sys, sysconfig
sys.path.insert(0, "${work}")
import bytecode
import os
if kind == "folder":
    sources = {n: open(f"${work}/input/{n}", "rb").read() for n in os.listdir("${work}/input")}
    name, data = filename, bytecode.compile_folder(sources, mount)
elif kind == "stdlib":
    data = open("${work}/input", "rb").read()
    mounted = next(p for p in sys.path if p.endswith(".zip"))
    name, data = filename, bytecode.compile_stdlib(data, mounted + "/")
else:
    data = open("${work}/input", "rb").read()
    # sysconfig spells it "//lib/...": the prefix "/" joined to "/lib"; tracebacks read "/lib/...".
    prefix = "/" + sysconfig.get_path("purelib").lstrip("/") + "/"
    name, data = bytecode.compile_wheel(data, filename, platform, prefix)
open("${work}/output", "wb").write(data)
name
`);
const target = kind === "wheel" ? join(output, name) : output;
writeFileSync(target, pyodide.FS.readFile(`${work}/output`));
console.log(target);
