// transferd's dashboard: pages are complete without this script; it only makes them live.
"use strict";

const units = ["bytes", "kB", "MB", "GB", "TB"];

/** A byte count as people read it: 1024-based, like the pages the server renders. */
function size(bytes) {
  let value = bytes, unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
  return (unit === 0 ? String(value) : value.toFixed(value < 10 ? 1 : 0)) + " " + units[unit];
}

/** A duration in seconds as `1h 02m`, `3m 05s` or `12s`. */
function duration(seconds) {
  const s = Math.max(0, Math.round(seconds));
  const two = (n) => String(n).padStart(2, "0");
  if (s >= 3600) return `${Math.floor(s / 3600)}h ${two(Math.floor(s / 60) % 60)}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m ${two(s % 60)}s`;
  return `${s}s`;
}

/** Bytes per second over the last few seconds of a task's progress events (their server times). */
class RateMeter {
  constructor() { this.samples = []; }
  add(time, bytes) {
    this.samples.push([time, bytes]);
    while (this.samples.length > 2 && time - this.samples[0][0] > 5000) this.samples.shift();
  }
  get rate() {
    if (this.samples.length < 2) return null;
    const [[t0, b0], [t1, b1]] = [this.samples[0], this.samples[this.samples.length - 1]];
    return t1 > t0 ? ((b1 - b0) * 1000) / (t1 - t0) : null;
  }
}

/** The session page's task table, updated from the session's event stream (`/v1/…/events`, read with the cookie). */
function liveTasks(table) {
  const session = table.dataset.liveSession;
  const status = document.querySelector("[data-live-status]");
  const meters = new Map();
  const row = (id) => table.querySelector(`tr[data-task="${id}"]`);
  const field = (tr, name) => tr.querySelector(`[data-field="${name}"]`);
  const say = (text) => { if (status) { status.textContent = text; status.hidden = false; } };

  function progress(tr, done, total, time) {
    const bar = tr.querySelector("progress");
    if (total > 0) {
      bar.value = Math.min(1, done / total);
      field(tr, "percent").textContent = `${Math.floor(bar.value * 100)} %`;
      field(tr, "bytes").textContent = `${size(done)} of ${size(total)}`;
    } else {
      field(tr, "bytes").textContent = size(done);
    }
    const meter = meters.get(tr.dataset.task) || new RateMeter();
    meters.set(tr.dataset.task, meter);
    meter.add(time, done);
    const rate = meter.rate;
    field(tr, "rate").textContent = rate === null ? "" : `${size(Math.round(rate))}/s`;
    field(tr, "eta").textContent = rate > 0 && total > 0 ? duration((total - done) / rate) : "";
  }

  function state(tr, stateName, text, tone) {
    tr.dataset.state = stateName;
    const label = field(tr, "status");
    label.textContent = text;
    label.className = `state ${tone}`;
    if (stateName === "completed" || stateName === "suspended") {
      // A bar without a value is indeterminate (animated): a task no longer at work shows where it stopped, or empty.
      const bar = tr.querySelector("progress");
      if (!bar.hasAttribute("value")) bar.value = 0;
      field(tr, "rate").textContent = "";
      field(tr, "eta").textContent = "";
      meters.delete(tr.dataset.task);
    }
  }

  /** A task this page does not show yet: its row, from the same page rendered again. */
  async function adopt(id) {
    const response = await fetch(location.href, { headers: { Accept: "text/html" } });
    if (!response.ok) return;
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    const fresh = page.querySelector(`table.tasks tr[data-task="${id}"]`);
    if (fresh && !row(id)) {
      table.tBodies[0].append(document.importNode(fresh, true));
      const empty = document.querySelector("p.empty");
      if (empty) empty.hidden = true;
    }
  }

  const only = table.dataset.onlyTask ? `&task=${table.dataset.onlyTask}` : "";
  const source = new EventSource(`/v1/sessions/${encodeURIComponent(session)}/events?after=${table.dataset.after}${only}`);
  source.onopen = () => say("Live");
  source.onerror = () => say(source.readyState === EventSource.CLOSED ? "Live updates stopped: reload the page." : "Reconnecting…");
  const on = (type, handle) => source.addEventListener(type, (message) => {
    const event = JSON.parse(message.data);
    const tr = row(event.taskIdentifier);
    if (tr) handle(tr, event.data, Date.parse(event.createdAt));
    else if (type === "task.created" && !table.dataset.filter && !only) adopt(event.taskIdentifier);
  });
  on("task.created", () => {});
  on("task.progress", (tr, data, time) => progress(tr, data.totalBytesWritten, data.totalBytesExpectedToWrite, time));
  on("task.upload_progress", (tr, data, time) => progress(tr, data.totalBytesSent, data.totalBytesExpectedToSend, time));
  on("task.suspended", (tr) => state(tr, "suspended", "suspended", "suspended"));
  on("task.resumed", (tr) => state(tr, "running", "running", "running"));
  on("task.waiting_for_connectivity", (tr) => state(tr, "running", "waiting: waitingForConnectivity", "suspended"));
  on("task.completed", (tr, data) => {
    if (data.error) {
      state(tr, "completed", `failed: ${data.error.code}`, "failed");
    } else {
      state(tr, "completed", "completed", "completed");
      tr.querySelector("progress").value = 1;
      field(tr, "percent").textContent = "100 %";
    }
  });
}

/**
 * A table whose rows the server renders from state that events change (a session's task counts, a background
 * task's state): on such an event, the same page is fetched again and the table's rows replaced.
 */
function liveRefresh(table) {
  let pending = null;
  const refresh = async () => {
    pending = null;
    const response = await fetch(location.href, { headers: { Accept: "text/html" } });
    if (!response.ok) return;
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    const fresh = page.querySelector(`table[data-live-refresh="${table.dataset.liveRefresh}"] tbody`);
    if (fresh) table.tBodies[0].replaceWith(document.importNode(fresh, true));
    for (const element of table.querySelectorAll("[data-remaining]")) countdown(element);
  };
  const source = new EventSource(table.dataset.liveRefresh);
  for (const type of table.dataset.liveOn.split(" ")) {
    source.addEventListener(type, () => { if (!pending) pending = setTimeout(refresh, 300); });
  }
}

/** `backgroundTimeRemaining`, counted down every second from the deadline the page was rendered with. */
function countdown(element) {
  const deadline = Date.now() + Number(element.dataset.remaining) * 1000;
  const tick = () => {
    if (!element.isConnected) return;
    const left = Math.max(0, (deadline - Date.now()) / 1000);
    element.textContent = duration(left);
    if (left > 0) setTimeout(tick, 1000 - (Date.now() % 1000));
  };
  tick();
}

for (const table of document.querySelectorAll("table[data-live-session]")) {
  if (window.EventSource) liveTasks(table);
}
for (const table of document.querySelectorAll("table[data-live-refresh]")) {
  if (window.EventSource) liveRefresh(table);
}
for (const element of document.querySelectorAll("[data-remaining]")) countdown(element);
