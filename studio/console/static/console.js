// The shift manager's overview: every table, paused ones first, with a visible and audible alarm.
import { el, follow } from "./live.js";

const rows = document.getElementById("rows");
const alarm = document.getElementById("alarm");
const soundButton = document.getElementById("sound");
let audio = null;
let sounding = false;

soundButton.addEventListener("click", () => {
  // Browsers let a page make sound only after a person has clicked on it.
  audio = audio || new AudioContext();
  soundButton.textContent = "Sound armed";
});

function beep() {
  if (!audio) return;
  const osc = audio.createOscillator();
  osc.frequency.value = 880;
  osc.connect(audio.destination);
  osc.start();
  osc.stop(audio.currentTime + 0.25);
}
setInterval(() => { if (sounding) beep(); }, 1000);

function show(data) {
  const paused = data.tables.filter((t) => t.paused && !t.acknowledged);
  sounding = paused.length > 0;
  alarm.hidden = data.tables.every((t) => !t.paused);
  alarm.dataset.audible = String(sounding);
  alarm.textContent = data.tables.filter((t) => t.paused).map((t) => `TABLE ${t.table} PAUSED: ${t.incident}`).join("  ·  ");
  rows.replaceChildren(...data.tables.map((t) => {
    const tr = el("tr", null, `row ${t.state.replace(" ", "-")}`);
    tr.dataset.table = t.table;
    tr.appendChild(el("td", t.table));
    tr.appendChild(el("td", t.state + (t.acknowledged ? " (acknowledged)" : ""), "state"));
    tr.appendChild(el("td", t.phase));
    tr.appendChild(el("td", t.game_number || "-"));
    tr.appendChild(el("td", t.incident || "-"));
    tr.appendChild(el("td", t.faults.join(", ") || "ok"));
    tr.appendChild(el("td", t.last_event_age === null ? "-" : `${t.last_event_age.toFixed(1)} s ago`));
    const open = el("td");
    const a = el("a", "open", "open");
    a.href = `/table/${encodeURIComponent(t.table)}`;
    open.appendChild(a);
    tr.appendChild(open);
    return tr;
  }));
}

follow("/ws/console", show, () => {});
