// whowrote page: paste or drop a text, POST /v1/predict, draw bars, legend and marked text.
// Formatted text pasted from a web page is read as Markdown first (POST /v1/read-html), a dropped
// .docx, .doc, .odt, .pdf, .epub, .rtf or .msg too (POST /v1/read-document).
// User text is only ever put into the page as text nodes (never parsed as HTML).
"use strict";

const LABELS = ["CLAUDE", "CHATGPT", "GEMINI", "OTHER"];
const NAMES = { CLAUDE: "Claude", CHATGPT: "ChatGPT", GEMINI: "Gemini", OTHER: "Other" };
const N_COLOURS = 10;
const MAX_FILE_BYTES = 2_000_000;

const $ = (id) => document.getElementById(id);

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function fmt(x) {
  if (x === null || x === undefined || Number.isNaN(Number(x))) return "–";
  const v = Number(x);
  const a = Math.abs(v);
  if (a === 0) return "0";
  if (a < 0.01 || a >= 10000) return v.toExponential(1);
  return a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : v.toFixed(2);
}

function setStatus(msg, isError) {
  const s = $("status");
  s.textContent = msg || "";
  s.classList.toggle("error", Boolean(isError));
}

function updateCount() {
  const t = $("text").value.trim();
  const n = t ? t.split(/\s+/).length : 0;
  $("count").textContent = n ? `${n.toLocaleString()} words` : "";
}

async function loadModelInfo() {
  try {
    const r = await fetch("/v1/model");
    const card = await r.json();
    $("model-info").textContent = `model: ${card.name} ${card.version}`;
  } catch (e) {
    $("model-info").textContent = "model: unavailable";
  }
}

function drawBars(result) {
  const bars = $("bars");
  bars.replaceChildren();
  const probs = result.probabilities || {};
  for (const label of LABELS) {
    const p = Number(probs[label] || 0);
    const row = el("div", "bar-row" + (label === result.provider ? " top" : ""));
    row.dataset.label = label;
    row.appendChild(el("span", "bar-name", NAMES[label] || label));
    const track = el("span", "bar-track");
    const fill = el("span", `bar-fill p-${label.toLowerCase()}`);
    fill.style.width = `${Math.max(0, Math.min(100, p * 100)).toFixed(1)}%`;
    track.appendChild(fill);
    row.appendChild(track);
    row.appendChild(el("span", "bar-value", `${(p * 100).toFixed(1)}%`));
    bars.appendChild(row);
  }
}

function normsText(norms) {
  return Object.entries(norms || {})
    .map(([prov, v]) => `${NAMES[prov] || prov} ${fmt(v)}`)
    .join(" · ");
}

function drawLegend(result, colourOf, counts) {
  const legend = $("legend");
  legend.replaceChildren();
  for (const tell of result.tells || []) {
    const item = el("li", "legend-item");
    item.dataset.feature = tell.feature;
    const marked = counts.get(tell.feature) || 0;
    const sw = el("span", marked ? `swatch hl-${colourOf.get(tell.feature)}` : "swatch hollow");
    item.appendChild(sw);
    const body = el("div", "legend-body");
    const head = el("div", "legend-head");
    head.appendChild(el("strong", null, tell.label || tell.feature));
    if (tell.favours) head.appendChild(el("span", `favours p-${String(tell.favours).toLowerCase()}`,
      `favours ${NAMES[tell.favours] || tell.favours}`));
    if (tell.fragile) {
      const badge = el("span", "fragile", "fragile");
      badge.title = "An everyday edit (pasting as plain text or into Word, re-rendering the Markdown, an editor's smart quotes, cutting the opening and closing paragraphs) can erase or move this tell.";
      head.appendChild(badge);
    }
    body.appendChild(head);
    const unit = tell.unit ? ` ${tell.unit}` : "";
    body.appendChild(el("div", "legend-line", `here ${fmt(tell.value)}${unit}; typical: ${normsText(tell.norms)}`));
    const absent = !marked && Number(tell.value) === 0;
    body.appendChild(el("div", "legend-line muted", marked ? `${marked} marked in the text`
      : absent ? "none in this text: the absence is the tell" : "a whole-text measure (not marked)"));
    if (tell.sentence) item.title = tell.sentence;
    item.appendChild(body);
    legend.appendChild(item);
  }
  if (!legend.children.length) legend.appendChild(el("li", "muted", "The model reported no tells."));
}

function drawMarked(text, result, colourOf) {
  const box = $("marked");
  box.replaceChildren();
  const chars = Array.from(text); // offsets are Unicode code points
  const tells = new Map((result.tells || []).map((t) => [t.feature, t]));
  let pos = 0;
  for (const span of result.highlights || []) {
    if (span.start < pos || span.end > chars.length || span.end <= span.start) continue;
    if (span.start > pos) box.appendChild(document.createTextNode(chars.slice(pos, span.start).join("")));
    const tell = tells.get(span.feature) || {};
    const mark = el("mark", `hl hl-${colourOf.get(span.feature) ?? 0}`, chars.slice(span.start, span.end).join(""));
    mark.dataset.feature = span.feature;
    mark.title = `${tell.label || span.feature}${tell.favours ? " (favours " + (NAMES[tell.favours] || tell.favours) + ")" : ""}`;
    box.appendChild(mark);
    pos = span.end;
  }
  if (pos < chars.length) box.appendChild(document.createTextNode(chars.slice(pos).join("")));
}

function show(text, result) {
  const counts = new Map();
  for (const s of result.highlights || []) counts.set(s.feature, (counts.get(s.feature) || 0) + 1);
  const colourOf = new Map();  // colours go to the tells that are marked, in order
  for (const t of result.tells || []) {
    if (counts.get(t.feature) && !colourOf.has(t.feature)) colourOf.set(t.feature, colourOf.size % N_COLOURS);
  }

  const name = result.provider === "OTHER" ? "none of the three" : (NAMES[result.provider] || result.provider);
  // uncertain first: its label is a lean, not a verdict (most texts by people get one)
  $("verdict").textContent = result.uncertain ? `Cannot tell (leans ${name})`
    : result.provider === "OTHER" ? "Not one of Claude, ChatGPT or Gemini (OTHER)" : `Most likely ${name}`;
  $("verdict").className = result.uncertain ? "" : `p-text-${String(result.provider).toLowerCase()}`;
  $("uncertain").hidden = !result.uncertain;
  $("words").textContent = `${Number(result.n_words || 0).toLocaleString()} words`;
  const warnings = $("warnings");
  warnings.replaceChildren(...(result.warnings || []).map((w) => el("li", null, w)));
  drawBars(result);
  drawLegend(result, colourOf, counts);
  drawMarked(text, result, colourOf);
  $("result").hidden = false;
}

async function run() {
  const text = $("text").value;
  if (!text.trim()) { setStatus("Paste or drop a text first.", true); return; }
  const button = $("go");
  button.disabled = true;
  setStatus("Reading the style…");
  try {
    const r = await fetch("/v1/predict", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      // "one of the three": the verdict conditioned on the user's knowing it (docs/predict.md, --among)
      body: JSON.stringify($("among").checked ? { text, highlight: true, among: ["CLAUDE", "CHATGPT", "GEMINI"] }
                                             : { text, highlight: true }),
    });
    const body = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
    if (!r.ok) { setStatus(body.error || `HTTP ${r.status}`, true); return; }
    show(text, body);
    setStatus("");
  } catch (e) {
    setStatus(`Request failed: ${e.message}`, true);
  } finally {
    button.disabled = false;
  }
}

// Formatted text pasted from a web page: the clipboard's HTML read as Markdown by the server
// (POST /v1/read-html), so headings, lists and bold reach the model as the source had them; the
// plain-text flavour (what the browser would paste) when there is no HTML, it reads as nothing, or
// the request fails. Left to the browser: Ctrl+Shift+V (paste as plain text: no HTML), and source
// copied from a code editor (VS Code's HTML is its text in `white-space: pre` blocks: the plain
// flavour is the Markdown source itself).
async function pasteFormatted(e) {
  const data = e.clipboardData;
  const html = data ? data.getData("text/html") : "";
  if (!html || /white-space:\s*pre/i.test(html)) return;
  e.preventDefault();
  const area = $("text");
  const [start, end] = [area.selectionStart, area.selectionEnd];
  let text = data.getData("text/plain");
  let note = "";
  try {
    const r = await fetch("/v1/read-html", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ html }),
    });
    const body = r.ok ? await r.json() : null;
    if (body && body.text && body.text.trim()) {
      text = body.text;
      note = "Pasted from a web page: its headings, lists and emphasis kept as Markdown (Ctrl+Shift+V pastes plain text).";
    }
  } catch (err) { /* the plain text, as the browser would paste it */ }
  area.setRangeText(text, start, end, "end");
  updateCount();
  setStatus(note);
}

// A Word or OpenDocument text: its bytes read as Markdown by the server (POST /v1/read-document),
// as `whowrote predict` reads the file, then attributed like a pasted text.
async function readDocument(file) {
  try {
    const r = await fetch("/v1/read-document", {
      method: "POST",
      headers: { "Content-Type": file.type || "application/octet-stream" },
      body: await file.arrayBuffer(),
    });
    const body = await r.json();
    if (!r.ok) { setStatus(`${file.name}: ${body.error || r.statusText}`, true); return; }
    $("text").value = body.text;
    updateCount();
    setStatus(`Loaded ${file.name} (a document: its headings, lists and emphasis read as Markdown)`);
    run();
  } catch (err) { setStatus(`Could not read ${file.name}`, true); }
}

function readFile(file) {
  if (!file) return;
  // .json: one chat log (a list of turns or a "messages" record), read by its assistant turns.
  if (!/\.(md|markdown|txt|html?|json|docx?|odt|pdf|epub|rtf|eml|msg)$/i.test(file.name) && !/^text\//.test(file.type)) {
    setStatus(`${file.name}: only .md, .txt, .html, .docx, .doc, .odt, .pdf, .epub, .rtf, .eml, .msg and .json (a chat log) files`, true); return;
  }
  if (file.size > MAX_FILE_BYTES) { setStatus(`${file.name} is larger than 2 MB`, true); return; }
  if (/\.(docx?|odt|pdf|epub|rtf|msg)$/i.test(file.name)) { readDocument(file); return; }
  const reader = new FileReader();
  reader.onload = () => { $("text").value = String(reader.result); updateCount(); setStatus(`Loaded ${file.name}`); run(); };
  reader.onerror = () => setStatus(`Could not read ${file.name}`, true);
  reader.readAsText(file);
}

function init() {
  const area = $("text");
  area.addEventListener("input", updateCount);
  area.addEventListener("paste", pasteFormatted);
  $("go").addEventListener("click", run);
  area.addEventListener("keydown", (e) => { if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) run(); });
  $("file").addEventListener("change", (e) => readFile(e.target.files[0]));
  for (const ev of ["dragenter", "dragover"]) {
    document.addEventListener(ev, (e) => { e.preventDefault(); area.classList.add("drop"); });
  }
  document.addEventListener("dragleave", (e) => { if (!e.relatedTarget) area.classList.remove("drop"); });
  document.addEventListener("drop", (e) => {
    e.preventDefault();
    area.classList.remove("drop");
    readFile(e.dataTransfer && e.dataTransfer.files[0]);
  });
  loadModelInfo();
  updateCount();
}

document.addEventListener("DOMContentLoaded", init);
