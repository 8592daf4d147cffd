// One table for the shift manager: the incident in words, the round so far, what clears it.
import { act, cardNode, el, follow } from "./live.js";

const root = document.getElementById("table");
const table = root.dataset.table;
const csrf = root.dataset.csrf;
const role = root.dataset.role;
const $ = (id) => document.getElementById(id);

const LABELS = {
  acknowledge_device: "Acknowledge device",
  cancel_rescan: "Cancel re-scan",
  correct_card: "Correct a card",
  discard_last_card: "Discard the last card",
  rescan: "Re-scan the cards",
  new_deck: "A freshly shuffled deck is in the shoe",
  resume: "Resume",
  void: "Void the round",
};

let current = null;

function ask(action) {
  const dialog = $("confirm");
  const fields = $("confirm-fields");
  fields.replaceChildren();
  const inputs = {};
  const field = (name, label) => {
    const l = el("label", `${label} `);
    const i = el("input");
    i.name = name;
    i.id = `field-${name}`;
    l.appendChild(i);
    fields.appendChild(l);
    inputs[name] = i;
  };
  if (action === "void") field("note", "Reason");
  if (action === "correct_card") {
    field("position", "Position");
    field("card", "Card");
    // The position the incident names is the one to correct, most of the time.
    const first = current && current.incidents.find((i) => i.expected);
    if (first) inputs.position.value = first.expected;
  }
  $("confirm-text").textContent = `${LABELS[action] || action} at table ${table}?`;
  dialog.returnValue = "";
  dialog.onclose = async () => {
    if (dialog.returnValue !== "ok") return;
    const body = { action };
    for (const [k, i] of Object.entries(inputs)) body[k] = i.value;
    if (action === "void" && !body.note.trim()) {
      $("answer").textContent = "A void needs a reason.";
      return;
    }
    const answer = await act(`/table/${table}/command`, csrf, body);
    $("answer").textContent = answer.status === "accepted" ? `${LABELS[action]}: accepted` : `${answer.status}: ${answer.reason}`;
  };
  dialog.showModal();
}

function show(d) {
  current = d;
  $("state").textContent = `${d.reachable ? "" : "NOT ANSWERING · "}${d.paused ? "PAUSED" : "running"} · phase ${d.phase} · game ${d.game_number || "-"} · light ${d.light || "-"}${d.expecting ? ` · next card to ${d.expecting}` : ""}`;
  root.dataset.paused = String(d.paused);
  $("incidents").replaceChildren(...(d.incidents.length ? d.incidents.map((i) => {
    const box = el("div", null, "incident");
    box.appendChild(el("p", `#${i.incident}: ${i.words}`, "words"));
    if (d.restricted) {
      const dl = el("dl");
      const add = (k, v) => { if (v) { dl.appendChild(el("dt", k)); dl.appendChild(el("dd", v)); } };
      add("Expected", i.expected ? `a card at ${i.expected}` : "");
      add("Arrived", i.arrived.join(", "));
      add("Device", i.device);
      add("Raw frame", i.raw ? `${i.raw}  "${i.raw_text}"` : "");
      add("Detail", i.detail);
      box.appendChild(dl);
      if (i.crop) {
        const img = el("img", null, "crop");
        img.src = i.crop;
        img.alt = `${i.expected || "the zone"} as the camera sees it`;
        box.appendChild(el("p", "As the camera sees it:", "crop-label"));
        box.appendChild(img);
      }
    }
    return box;
  }) : [el("p", "No incident.")]));
  $("round").replaceChildren(...d.cards.map(cardNode));
  $("blockers").replaceChildren(...d.blockers.map((b) => el("li", b)));
  const actions = $("actions");
  actions.replaceChildren();
  if (role === "shift_manager") {
    for (const action of d.actions) {
      const b = el("button", LABELS[action] || action, `action ${action}`);
      b.id = `action-${action}`;
      b.addEventListener("click", () => ask(action));
      actions.appendChild(b);
    }
    if (d.paused && !d.acknowledged) {
      const b = el("button", "Acknowledge alarm", "action ack");
      b.id = "acknowledge";
      b.addEventListener("click", async () => {
        const answer = await act(`/table/${table}/acknowledge`, csrf, {});
        $("answer").textContent = answer.status === "accepted" ? "acknowledge: accepted" : `acknowledge: ${answer.status}: ${answer.reason}`;
      });
      actions.appendChild(b);
    }
  }
}

follow(`/ws/table/${table}`, show, () => {});
