// ESLint for the project's JavaScript: the recommended rules, and each file's globals by
// where it runs. Formatting is Prettier's (.prettierrc.json); types are TypeScript's
// (tsconfig*.json), so this file holds no style or type rules.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["build/", "node_modules/", ".venv*/"] },
  js.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      // `const { a, ...rest } = o` is how a copy of o without a is made.
      "no-unused-vars": ["error", { ignoreRestSiblings: true }],
      // `x == null` is the one loose comparison: null or undefined.
      eqeqeq: ["error", "always", { null: "ignore" }],
      "prefer-const": "error",
    },
  },
  // The demo page's modules and the benchmark page.
  {
    files: ["demo/main.js", "demo/js/**/*.js", "benchmarks/page/**/*.mjs", "examples/**/*.js"],
    languageOptions: { globals: globals.browser },
  },
  // Module workers: the demo's worker and the one that takes its memory snapshot.
  {
    files: ["demo/worker.js", "tools/snapshot_worker.mjs"],
    languageOptions: { globals: globals.worker },
  },
  // Node programs: the bytecode compiler, the Node benchmarks and the tests' Node scripts.
  {
    files: ["tools/**/*.mjs", "benchmarks/*.mjs", "tests/**/*.mjs"],
    ignores: ["tools/snapshot_worker.mjs"],
    languageOptions: { globals: globals.node },
  },
  // pyctx_web's JavaScript runs inside Pyodide in a page, a worker or Node. Its .js files
  // are each one expression that Pyodide evaluates (pyctx_web/_js.py), so scripts, as is
  // the expression the benchmark page evaluates.
  {
    files: ["pyctx_web/js/**/*.mjs", "pyctx_web/js/**/*.js", "benchmarks/page/**/*.js"],
    languageOptions: { globals: { ...globals.browser, ...globals.worker, ...globals.node } },
  },
  {
    files: ["pyctx_web/js/**/*.js", "benchmarks/page/**/*.js"],
    languageOptions: { sourceType: "script" },
  },
];
