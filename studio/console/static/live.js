// Shared pieces of the console's pages: a WebSocket that reconnects, text-only DOM helpers,
// countdowns that tick between updates, and actions posted with the CSRF token and a nonce.

export function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

export function follow(path, onMessage, onLink) {
  let delay = 250;
  const open = () => {
    const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${path}`);
    ws.onopen = () => { delay = 250; onLink(true); };
    ws.onmessage = (event) => onMessage(JSON.parse(event.data), performance.now());
    ws.onclose = async () => {
      onLink(false);
      // A session that ended (expired, or the person was removed) goes back to sign in.
      try {
        const check = await fetch("/api/nonce", { credentials: "same-origin" });
        if (check.status === 401) {
          location.assign(`/signin?why=expired&next=${encodeURIComponent(location.pathname)}`);
          return;
        }
      } catch {
        // The console itself is away: keep trying.
      }
      setTimeout(open, delay);
      delay = Math.min(delay * 2, 4000);
    };
  };
  open();
}

// Countdowns: each element with data-until (performance.now() ms) shows the seconds left.
export function tick() {
  const now = performance.now();
  for (const node of document.querySelectorAll("[data-until]")) {
    const left = Math.max(0, (Number(node.dataset.until) - now) / 1000);
    node.textContent = `${node.dataset.label} ${left.toFixed(0)} s`;
  }
}
setInterval(tick, 200);

export function countdown(node, value, receivedAt) {
  if (!value) {
    delete node.dataset.until;
    node.textContent = "";
    return;
  }
  node.dataset.label = value.label;
  node.dataset.until = String(receivedAt + value.seconds * 1000);
  tick();
}

export async function act(path, csrf, body) {
  const nonceReply = await fetch("/api/nonce", { credentials: "same-origin" });
  if (!nonceReply.ok) return { status: "refused", reason: "signed out: sign in again" };
  const { nonce } = await nonceReply.json();
  const reply = await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ ...body, csrf, nonce }),
  });
  try {
    return await reply.json();
  } catch {
    return { status: "error", reason: `HTTP ${reply.status}` };
  }
}

export function cardNode(card) {
  const box = el("div", null, "card");
  box.dataset.position = card.position;
  box.appendChild(el("div", card.position, "pos"));
  let face;
  if (card.code) face = el("div", card.code, "code");
  else if (card.face_up) face = el("div", "unreadable", "code unreadable");
  else face = el("div", "face down", "code down");
  box.appendChild(face);
  box.appendChild(el("div", card.confirmed ? "camera ✓" : "camera …", card.confirmed ? "cam ok" : "cam wait"));
  return box;
}
