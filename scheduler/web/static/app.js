// tilecensus web: keeps the runs table and a run's page live by polling the JSON API.
// Every value goes into the page through textContent (never as HTML).
"use strict";

const POLL_MS = 3000;

function etaText(seconds) {
  if (seconds === null || seconds === undefined || seconds === "") return "--:--:--";
  const s = Math.min(Math.round(Number(seconds)), 99 * 3600);
  const pad = (n) => String(n).padStart(2, "0");
  return pad(Math.floor(s / 3600)) + ":" + pad(Math.floor(s / 60) % 60) + ":" + pad(s % 60);
}

function num(v) {
  return v === null || v === undefined ? "" : Number(v).toLocaleString("en-US");
}

function cell(text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}

function runRow(r) {
  const tr = document.createElement("tr");
  tr.dataset.runId = r.run_id;
  const link = document.createElement("a");
  link.href = "/runs/" + encodeURIComponent(r.run_id);
  link.textContent = r.run_id;
  const first = document.createElement("td");
  first.appendChild(link);
  tr.appendChild(first);
  tr.appendChild(cell(r.problem));
  tr.appendChild(cell(r.mode));
  tr.appendChild(cell(r.status, "status-" + r.status));
  const p = document.createElement("td");
  const bar = document.createElement("progress");
  bar.max = 1;
  bar.value = r.progress;
  const pct = document.createElement("span");
  pct.className = "pct";
  pct.textContent = (100 * r.progress).toFixed(1) + "%";
  p.append(bar, " ", pct);
  tr.appendChild(p);
  tr.appendChild(cell(num(r.solutions), "num"));
  tr.appendChild(cell(num(r.distinct), "num"));
  tr.appendChild(cell(num(r.subproblems), "num"));
  let verified = "";
  if (r.verified !== null && r.verified !== undefined) {
    verified = String(r.verified) + (r.mismatches ? " (" + r.mismatches + " MISMATCH)" : "");
  }
  tr.appendChild(cell(verified));
  tr.appendChild(cell(Number(r.seconds).toFixed(2), "num"));
  tr.appendChild(cell(r.status === "running" ? etaText(r.eta_seconds) : "", "eta"));
  tr.appendChild(cell(r.created || ""));
  return tr;
}

function stamp() {
  const el = document.getElementById("updated");
  if (el) el.textContent = "updated " + new Date().toLocaleTimeString();
}

async function getJSON(url) {
  const response = await fetch(url, { credentials: "same-origin", cache: "no-store" });
  if (!response.ok) throw new Error(url + ": " + response.status);
  return response.json();
}

async function refreshRuns() {
  const rows = await getJSON("/api/runs" + window.location.search);
  const body = document.querySelector("#runs tbody");
  body.replaceChildren(...rows.map(runRow));
  if (!rows.length) {
    const tr = document.createElement("tr");
    const td = cell("no runs");
    td.colSpan = 12;
    tr.appendChild(td);
    body.appendChild(tr);
  }
  stamp();
}

function setField(name, text) {
  document.querySelectorAll('[data-field="' + name + '"]').forEach((el) => { el.textContent = text; });
}

async function refreshRun(runId) {
  const s = await getJSON("/api/runs/" + encodeURIComponent(runId));
  setField("solutions", num(s.solutions));
  setField("status", s.status);
  setField("progress", (100 * s.progress).toFixed(2));
  setField("eta", etaText(s.eta_seconds));
  setField("nodes", num(s.nodes));
  setField("seconds", Number(s.seconds).toFixed(3));
  setField("subproblems", ["total " + s.subproblems].concat(
    Object.entries(s.subproblem_states).map(([k, v]) => k + " " + v)).join(", "));
  document.querySelectorAll('[data-field="progress-bar"]').forEach((el) => { el.value = s.progress; });
  const now = Date.now();
  document.querySelectorAll("img.chart").forEach((img) => {
    img.src = img.src.split("?")[0] + "?t=" + now;
  });
  stamp();
  return s.status;
}

function poll(step) {
  const tick = async () => {
    let again = true;
    try {
      again = (await step()) !== false;
    } catch (err) {
      console.warn("tilecensus: " + err.message);
    }
    if (again) window.setTimeout(tick, POLL_MS);
  };
  window.setTimeout(tick, POLL_MS);
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("[data-eta]").forEach((el) => { el.textContent = etaText(el.dataset.eta); });
  const page = document.body.dataset.page;
  if (page === "runs") {
    poll(async () => { await refreshRuns(); return true; });
  } else if (page === "run" && document.body.dataset.status === "running") {
    const runId = document.body.dataset.runId;
    poll(async () => (await refreshRun(runId)) === "running");
  }
});
