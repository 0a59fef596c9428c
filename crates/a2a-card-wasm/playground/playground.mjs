// The playground: the package's web build in one page. Every answer on the page is the
// library's (canonicalizeWithReport, lint, inspect, verifyAsync, sign, generateKey, migrate,
// schema); this file only wires the page to it and shows the results. locate.mjs finds the
// members a JSON Pointer names in the card text, to highlight them.
//
// build.mjs bundles this file with the web build and defines A2A_CARD_WASM_BASE64 (the .wasm),
// A2A_CARD_SAMPLE (the section 8.5 sample card) and A2A_CARD_VERSION.
import init, * as a2a from "a2a-card-web";
import { locate, placeOf } from "./locate.mjs";

/* global A2A_CARD_WASM_BASE64, A2A_CARD_SAMPLE, A2A_CARD_VERSION */

const PROFILES = ["spec", "prune-empty", "served-as-is"];
const $ = (id) => document.getElementById(id);
const state = {
  text: "",
  places: new Map(),
  forms: {},
  profile: "spec",
  flagged: null,
  key: null,
  trustFromKey: false,
  verifying: 0,
};

/** An element with text and attributes. */
function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k.startsWith("data-")) e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const c of children) e.append(c instanceof Node ? c : String(c));
  return e;
}

/** The words of a library error: `code: message`. */
function said(e) {
  return e && e.code ? `${e.code}: ${e.message}` : String(e);
}

/** A link that highlights the member `pointer` names in the card view. */
function pointerLink(pointer) {
  const a = el("a", { class: "pointer", href: "#card-view", "data-pointer": pointer }, pointer === "" ? "(root)" : pointer);
  a.addEventListener("click", (event) => {
    event.preventDefault();
    flag(pointer);
  });
  return a;
}

/** Highlights the member `pointer` names (or where it would be) and scrolls to it. */
function flag(pointer) {
  state.flagged = pointer;
  renderCardView();
  $("card-view").querySelector("mark.flagged")?.scrollIntoView({ block: "center" });
}

/** The card text with marks: unsigned members under the chosen profile, and the flagged one. */
function renderCardView() {
  const view = $("card-view");
  const text = state.text;
  const ranges = [];
  const unsigned = state.forms[state.profile]?.unsigned ?? [];
  for (const p of unsigned) {
    const at = state.places.get(p);
    if (at) ranges.push({ ...at, cls: "unsigned", pointer: p });
  }
  if (state.flagged !== null) {
    const at = placeOf(state.places, state.flagged);
    if (at) ranges.push({ start: at.start, end: at.end, cls: "flagged", pointer: at.pointer });
  }
  // Outer ranges first; ranges nest, since JSON members do.
  ranges.sort((a, b) => a.start - b.start || b.end - a.end);
  view.replaceChildren();
  let i = 0;
  const emit = (parent, end, list) => {
    while (list.length && list[0].start < end) {
      const r = list.shift();
      if (r.start < i) continue;
      parent.append(text.slice(i, r.start));
      i = r.start;
      const mark = el("mark", { class: r.cls, "data-pointer": r.pointer, title: r.pointer });
      emit(mark, Math.min(r.end, end), list);
      mark.append(text.slice(i, Math.min(r.end, end)));
      i = Math.min(r.end, end);
      parent.append(mark);
    }
    parent.append(text.slice(i, end));
    i = end;
  };
  emit(view, text.length, ranges);
  $("view-profile").textContent = state.profile;
}

function renderCanonical() {
  for (const tab of document.querySelectorAll(".tabs button")) {
    tab.setAttribute("aria-selected", String(tab.dataset.profile === state.profile));
  }
  const form = state.forms[state.profile];
  const list = $("unsigned-list");
  list.replaceChildren();
  if (!form) {
    $("canonical-facts").textContent = "";
    $("canonical-text").textContent = "";
    return;
  }
  if (form.error) {
    $("canonical-facts").textContent = `${state.profile}: the card has no canonical form (${said(form.error)})`;
    $("canonical-text").textContent = "";
    return;
  }
  $("canonical-facts").textContent = `${form.bytes} bytes · SHA-256 ${form.sha256}`;
  $("canonical-text").textContent = form.canonical;
  if (form.unsigned.length === 0) list.append(el("li", {}, "none: every member is covered"));
  for (const p of form.unsigned) list.append(el("li", {}, pointerLink(p)));
}

function renderLint(report) {
  const list = $("lint-list");
  list.replaceChildren();
  if (report.error) {
    $("lint-summary").textContent = `not lintable: ${said(report.error)}`;
    return;
  }
  const count = (s) => report.findings.filter((f) => f.severity === s).length;
  const errors = count("error");
  const warnings = count("warning");
  $("lint-summary").textContent =
    report.findings.length === 0 ? "clean: no finding" : `${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}`;
  for (const f of report.findings) {
    list.append(
      el(
        "li",
        { class: `finding ${f.severity}`, "data-rule": f.rule },
        el("span", { class: `severity ${f.severity}` }, f.severity),
        el("span", { class: "rule" }, f.rule),
        " ",
        pointerLink(f.pointer),
        el("div", { class: "message" }, f.message),
      ),
    );
  }
}

function renderSignatures(inspection) {
  const box = $("signature-list");
  box.replaceChildren();
  if (inspection.error) {
    box.append(el("p", { class: "facts" }, `cannot inspect: ${said(inspection.error)}`));
    return;
  }
  if (inspection.signatures.length === 0) {
    box.append(el("p", { class: "facts" }, "The card is not signed."));
    return;
  }
  for (const s of inspection.signatures) {
    const dl = el("dl");
    const row = (k, v) => v !== null && v !== undefined && dl.append(el("dt", {}, k), el("dd", {}, v));
    let header = s.protected;
    try {
      header = JSON.stringify(JSON.parse(s.protected), null, 2);
    } catch {
      // shown as decoded
    }
    row("alg", s.alg);
    row("kid", s.kid);
    row("typ", s.typ);
    row("jku", s.jku);
    row("protected", header);
    row("signature", s.signature_bytes === null ? null : `${s.signature_bytes} bytes`);
    row("problem", s.problem);
    box.append(el("div", { class: "entry", "data-index": s.index }, el("strong", {}, `signature ${s.index}`), dl));
  }
}

/** Verifies the card against the trust roots given, with verifyAsync (WebCrypto). */
async function verifyNow() {
  const run = ++state.verifying;
  const box = $("verdict");
  const list = $("verdict-list");
  const trust = $("trust-input").value.trim();
  if (!trust || !state.text.trim()) {
    box.className = "verdict";
    box.textContent = trust ? "" : "Paste a JWK Set or a trust store to verify the card.";
    list.replaceChildren();
    return;
  }
  const options = { [$("trust-kind").value]: trust, profile: $("verify-profile").value, mode: $("verify-mode").value };
  let report;
  try {
    report = await a2a.verifyAsync(state.text, options);
  } catch (e) {
    if (run !== state.verifying) return;
    box.className = "verdict invalid";
    box.replaceChildren("cannot verify: ", el("span", { class: "reason" }, said(e)));
    list.replaceChildren();
    return;
  }
  if (run !== state.verifying) return;
  box.className = `verdict ${report.ok ? "valid" : "invalid"}`;
  box.dataset.ok = String(report.ok);
  box.replaceChildren(report.ok ? "VALID" : "INVALID", ": ", el("span", { class: "reason" }, report.reason));
  list.replaceChildren();
  for (const s of report.signatures) {
    const where = s.key ? ` (key from ${s.key.source}${s.profile ? `, profile ${s.profile}` : ""})` : "";
    list.append(
      el(
        "li",
        { "data-code": s.verdict.code },
        el("span", { class: `severity ${s.verdict.code === "valid" ? "" : "error"}` }, s.verdict.code),
        ` signature ${s.index}: kid ${JSON.stringify(s.kid)} alg ${s.alg ?? "?"}: ${s.verdict.message}${where}`,
        s.verdict.pointer ? el("span", {}, " at ", pointerLink(s.verdict.pointer)) : "",
      ),
    );
  }
  if (report.ok && report.unsigned.length) {
    list.append(el("li", {}, `${report.unsigned.length} member(s) not covered by the signatures: do not rely on them`));
  }
}

/** Reads the card again and shows everything about it. */
function refresh() {
  state.text = $("card-input").value;
  state.places = locate(state.text);
  state.flagged = null;
  const error = $("card-error");
  error.hidden = true;
  for (const profile of PROFILES) {
    try {
      state.forms[profile] = a2a.canonicalizeWithReport(state.text, { profile });
    } catch (e) {
      state.forms[profile] = { error: e };
    }
  }
  let lint;
  try {
    lint = a2a.lint(state.text);
  } catch (e) {
    lint = { error: e };
    if (state.text.trim()) {
      error.hidden = false;
      error.textContent = `The card cannot be read: ${said(e)}${e.pointer !== null && e.pointer !== undefined ? ` (at ${e.pointer === "" ? "the root" : e.pointer})` : ""}`;
    }
  }
  let inspection;
  try {
    inspection = a2a.inspect(state.text);
  } catch (e) {
    inspection = { error: e };
  }
  renderCardView();
  renderCanonical();
  renderLint(lint);
  renderSignatures(inspection);
  $("sign-card").disabled = state.key === null;
  return verifyNow();
}

function setCard(text) {
  $("card-input").value = text;
  $("migration").hidden = true;
  return refresh();
}

function wire() {
  let timer;
  $("card-input").addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(refresh, 150);
  });
  for (const id of ["trust-input", "trust-kind", "verify-profile", "verify-mode"]) {
    $(id).addEventListener("input", () => {
      if (id === "trust-input") state.trustFromKey = false;
      verifyNow();
    });
  }
  for (const tab of document.querySelectorAll(".tabs button")) {
    tab.addEventListener("click", () => {
      state.profile = tab.dataset.profile;
      renderCanonical();
      renderCardView();
    });
  }
  $("card-file").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (file) await setCard(await file.text());
  });
  const input = $("card-input");
  input.addEventListener("dragover", (event) => {
    event.preventDefault();
    input.classList.add("dragging");
  });
  input.addEventListener("dragleave", () => input.classList.remove("dragging"));
  input.addEventListener("drop", async (event) => {
    event.preventDefault();
    input.classList.remove("dragging");
    const file = event.dataTransfer?.files?.[0];
    if (file) await setCard(await file.text());
  });
  $("load-sample").addEventListener("click", () => setCard(A2A_CARD_SAMPLE));
  $("migrate").addEventListener("click", () => {
    const box = $("migration");
    try {
      const m = a2a.migrate($("card-input").value);
      box.replaceChildren();
      box.hidden = false;
      if (m.alreadyV1) {
        box.append(el("p", { class: "facts" }, "Already an A2A 1.0 card: nothing to migrate."));
        return;
      }
      $("card-input").value = m.card;
      refresh();
      box.hidden = false;
      box.append(el("h3", {}, `Migrated from A2A 0.3${m.lost ? " (something was dropped or is missing: see the notes)" : ""}`));
      const ul = el("ul", { class: "findings" });
      for (const n of m.notes) ul.append(el("li", {}, el("span", { class: "rule" }, n.kind), " ", n.pointer || "(root)", n.target ? ` → ${n.target}` : "", `: ${n.message}`));
      box.append(ul);
    } catch (e) {
      $("card-error").hidden = false;
      $("card-error").textContent = `Cannot migrate: ${said(e)}`;
    }
  });
  $("generate-key").addEventListener("click", () => {
    const kid = $("key-kid").value.trim();
    try {
      state.key = a2a.generateKey($("key-alg").value, kid ? { kid } : undefined);
    } catch (e) {
      $("key-facts").textContent = `Cannot make the key: ${said(e)}`;
      return;
    }
    $("key-facts").textContent = `${state.key.alg} key, kid ${JSON.stringify(state.key.kid)}. Its private half stays in this page's memory; reload the page to forget it.`;
    $("public-jwks").textContent = JSON.stringify(state.key.jwks, null, 2);
    $("sign-card").disabled = false;
  });
  $("sign-card").addEventListener("click", () => {
    const error = $("sign-error");
    error.hidden = true;
    let signed;
    try {
      signed = a2a.sign($("card-input").value, state.key.privateJwk, $("sign-exclude").checked ? { unknown: "exclude" } : {});
    } catch (e) {
      error.hidden = false;
      error.textContent = `Cannot sign: ${said(e)}`;
      return;
    }
    if (!$("trust-input").value.trim() || state.trustFromKey) {
      $("trust-input").value = JSON.stringify(state.key.jwks, null, 2);
      $("trust-kind").value = "jwks";
      state.trustFromKey = true;
    }
    setCard(signed);
  });
  const schema = new Blob([`${JSON.stringify(a2a.schema(), null, 2)}\n`], { type: "application/schema+json" });
  $("schema-link").href = URL.createObjectURL(schema);
}

async function main() {
  const bytes = Uint8Array.from(atob(A2A_CARD_WASM_BASE64), (c) => c.charCodeAt(0));
  await init({ module_or_path: bytes });
  $("version").textContent = A2A_CARD_VERSION;
  wire();
  $("status").textContent = `ready: a2a-card ${A2A_CARD_VERSION}; WebCrypto ${a2a.webCryptoAvailable() ? "checks the signatures" : "is not available here, the library checks the signatures itself"}`;
  document.body.dataset.ready = "true";
  if ($("card-input").value) await refresh();
}

main().catch((e) => {
  $("status").textContent = `The library did not load: ${e}`;
  $("status").className = "status error";
});
