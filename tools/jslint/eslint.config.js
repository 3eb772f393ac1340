// ESLint for the web client: ES modules that the browser loads as they are (no build
// step), and the Node script of the client's tests. Run from the repository's root by
// scripts/test: tools/jslint/node_modules/.bin/eslint --config tools/jslint/eslint.config.js
import js from "@eslint/js";
import globals from "globals";

// Browser globals that a slip of the pen reaches without an error: a bare `name`, `event`
// or `status` is the window's, never a variable of ours.
const CONFUSING = ["blur", "close", "closed", "event", "external", "find", "focus", "frames",
  "length", "name", "open", "opener", "origin", "parent", "print", "screen", "scroll", "self",
  "status", "stop", "top"];

const rules = {
  ...js.configs.recommended.rules,
  "no-unused-vars": ["error", { args: "after-used", caughtErrors: "all" }],
  "no-use-before-define": ["error", { functions: false, classes: false, variables: true }],
  "no-restricted-globals": ["error", ...CONFUSING],
  "no-shadow": "error",
  "no-unused-expressions": "error",
  "no-unused-private-class-members": "error",
  "no-self-compare": "error",
  "no-template-curly-in-string": "error",
  "no-promise-executor-return": "error",
  "array-callback-return": "error",
  eqeqeq: ["error", "always", { null: "ignore" }],
  "prefer-const": "error",
  "no-var": "error",
};

export default [
  {
    files: ["client_web/js/**/*.js"],
    languageOptions: { ecmaVersion: 2024, sourceType: "module", globals: globals.browser },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules,
  },
  {
    files: ["client_web/tests/**/*.mjs"],
    languageOptions: { ecmaVersion: 2024, sourceType: "module", globals: globals.node },
    rules,
  },
];
