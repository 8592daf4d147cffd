// The dealer display: large type, one table, public view only (the server sends nothing else).
import { act, cardNode, countdown, el, follow } from "./live.js";

const root = document.getElementById("dealer");
const table = root.dataset.table;
const $ = (id) => document.getElementById(id);

function show(d, at) {
  $("phase").textContent = d.paused ? "PAUSED" : d.phase.replaceAll("_", " ");
  $("game").textContent = d.game_number ? `game ${d.game_number}` : "";
  const light = $("light");
  light.textContent = d.light ? d.light.toUpperCase() : "";
  light.className = `light ${d.light || "off"}`;
  countdown($("light-countdown"), d.light_countdown, at);
  $("prompt").textContent = d.deal_next ? `DEAL: ${d.deal_next}` : "";
  const win = $("window");
  win.replaceChildren();
  if (d.window) {
    win.appendChild(el("span", `${d.window}: ${d.window_options.join(" / ")} — automatic ${d.window_automatic}`));
    const c = el("span", "", "countdown");
    win.appendChild(c);
    countdown(c, d.window_countdown, at);
  }
  $("cards").replaceChildren(...d.cards.map(cardNode));
  $("stop").hidden = !d.paused;
  $("stop-reason").textContent = d.stop_reason;
  root.dataset.phase = d.phase;
  root.dataset.game = d.game_number || "";
  root.dataset.paused = String(d.paused);
  $("link").textContent = d.reachable ? "" : "table not answering: reconnecting…";
}

follow(`/ws/dealer/${table}`, show, (up) => {
  if (!up) $("link").textContent = "console not answering: reconnecting…";
});

const call = $("call-manager");
if (call) {
  call.addEventListener("click", async () => {
    if (!confirm("Call the shift manager? The table stops.")) return;
    const answer = await act(`/table/${table}/command`, root.dataset.csrf, { action: "call_manager" });
    $("link").textContent = answer.status === "accepted" ? "" : `${answer.status}: ${answer.reason}`;
  });
}
