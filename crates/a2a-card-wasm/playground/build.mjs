// Builds the playground into one HTML file that works offline, from file:// too:
// index.html with playground.css and the bundle of playground.mjs (esbuild: the page's code, the
// package's web build, and the .wasm as base64) inline. No request leaves the page.
//
// Usage: node build.mjs [OUT] (after scripts/build-wasm.sh; scripts/build-playground.sh runs
// both). OUT defaults to $A2A_CARD_WASM_PKG/playground/index.html, or
// crates/a2a-card-wasm/pkg/playground/index.html.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "../../..");
const pkgDir = process.env.A2A_CARD_WASM_PKG ? path.resolve(process.env.A2A_CARD_WASM_PKG) : path.resolve(here, "../pkg");
const out = path.resolve(process.argv[2] ?? path.join(pkgDir, "playground/index.html"));

const web = path.join(pkgDir, "web/a2a_card.js");
const wasm = path.join(pkgDir, "web/a2a_card_bg.wasm");
for (const f of [web, wasm]) {
  if (!fs.existsSync(f)) {
    console.error(`error: ${f} is missing: run scripts/build-wasm.sh first`);
    process.exit(2);
  }
}
const version = JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8")).version;
const sample = fs.readFileSync(path.join(repoRoot, "testvectors/cards/sample-8.5-unsigned.json"), "utf8");

const result = await esbuild.build({
  entryPoints: [path.join(here, "playground.mjs")],
  bundle: true,
  format: "esm",
  target: "es2022",
  write: false,
  minify: true,
  legalComments: "none",
  alias: { "a2a-card-web": web },
  define: {
    A2A_CARD_WASM_BASE64: JSON.stringify(fs.readFileSync(wasm).toString("base64")),
    A2A_CARD_SAMPLE: JSON.stringify(sample),
    A2A_CARD_VERSION: JSON.stringify(version),
  },
  logLevel: "warning",
  // wasm-bindgen may list the module of a crate's JavaScript snippet (js/*.js) once per Rust
  // module that imports from it, under the same key and with the same value: harmless.
  logOverride: { "duplicate-object-key": "silent" },
});
// A script element's text ends at "</script"; the bundle must not hold one.
const script = result.outputFiles[0].text.replaceAll("</script", "<\\/script");
const style = fs.readFileSync(path.join(here, "playground.css"), "utf8");
const html = fs
  .readFileSync(path.join(here, "index.html"), "utf8")
  .replace("/*STYLE*/", () => style)
  .replace("/*SCRIPT*/", () => script);
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, html);
console.log(`==> playground: ${out} (${html.length} bytes)`);
