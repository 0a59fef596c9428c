// The browser tests' and browser benchmark's harness: a static file server on loopback (started
// by the caller, stopped with it) and headless Chromium, the system's (Debian package
// `chromium`, /usr/bin/chromium, or $CHROMIUM), driven by puppeteer-core (which uses the given
// browser and never downloads one). Each launch gets a fresh profile directory, removed after.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import puppeteer from "puppeteer-core";

/** The browser: $CHROMIUM, else /usr/bin/chromium. */
export const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";

/** True when the browser binary is there. */
export function chromiumPresent() {
  try {
    fs.accessSync(chromiumPath, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".css": "text/css; charset=utf-8",
  ".png": "image/png",
};

/**
 * Serves `routes` (`{ "/prefix/": "/dir" }`) on 127.0.0.1, on a port the system picks; GET and
 * HEAD only, files only, no path outside its directory. `extra` answers other URLs
 * (`(url) => ({ type, body }) | null`). Resolves to `{ origin, close }`.
 */
export function serve(routes, extra = () => null) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://127.0.0.1");
    const reply = (status, type, body) => {
      res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
      res.end(req.method === "HEAD" ? undefined : body);
    };
    if (req.method !== "GET" && req.method !== "HEAD") return reply(405, "text/plain", "method not allowed");
    const made = extra(url);
    if (made) return reply(200, made.type, made.body);
    for (const [prefix, dir] of Object.entries(routes)) {
      if (!url.pathname.startsWith(prefix)) continue;
      const file = path.resolve(dir, decodeURIComponent(url.pathname.slice(prefix.length)) || "index.html");
      if (!file.startsWith(path.resolve(dir) + path.sep)) return reply(403, "text/plain", "outside the served folder");
      let body;
      try {
        body = fs.readFileSync(file);
      } catch {
        return reply(404, "text/plain", `not found: ${url.pathname}`);
      }
      return reply(200, TYPES[path.extname(file)] ?? "application/octet-stream", body);
    }
    return reply(404, "text/plain", `not found: ${url.pathname}`);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({ origin: `http://127.0.0.1:${port}`, close: () => new Promise((done) => server.close(done)) });
    });
  });
}

/**
 * Headless Chromium with a fresh profile. The flags keep it from dialling out (this machine's
 * network is closed, and a test must not depend on one): no background networking, component
 * updates, sync or QUIC. `--no-sandbox` because the tests may run as root. Resolves to
 * `{ browser, close }`; the page's console errors and uncaught exceptions are collected in
 * `errors`.
 */
export async function launch() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "a2a-card-chromium-"));
  const browser = await puppeteer.launch({
    executablePath: chromiumPath,
    headless: true,
    userDataDir: profile,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  });
  const close = async () => {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  };
  return { browser, close };
}

/** A new page of `browser` at `url`; `errors` collects what the page logs as errors and throws. */
export async function open(browser, url) {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(`uncaught: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  page.on("requestfailed", (r) => errors.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on("response", (r) => {
    if (r.status() >= 400) errors.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  await page.goto(url, { waitUntil: "load" });
  return { page, errors };
}
