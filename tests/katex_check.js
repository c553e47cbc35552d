// Render every formula of a JSON list with KaTeX, strictly, in one process.
// stdin: [{"tex": "...", "display": true}, ...]; stdout: [{"index": i, "error": "..."}, ...]
"use strict";
const katex = require("katex");

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const formulas = JSON.parse(input);
  const errors = [];
  formulas.forEach((f, index) => {
    try {
      katex.renderToString(f.tex, { displayMode: f.display, strict: "error", throwOnError: true });
    } catch (e) {
      errors.push({ index, error: String(e.message || e) });
    }
  });
  process.stdout.write(JSON.stringify({ version: katex.version, checked: formulas.length, errors }));
});
