"""The console's HTML: small server-rendered shells; the live parts are drawn by plain JS modules.

Every value put into a page is escaped here; the scripts put values into the DOM as text only.
"""

from __future__ import annotations

from html import escape

from studio.console.display import RecallPage


def _page(title: str, body: str, *, script: str | None = None, body_class: str = "") -> str:
    module = f'<script type="module" src="/static/{script}"></script>' if script else ""
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{escape(title)}</title>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        "<link rel='stylesheet' href='/static/console.css'>"
        f"{module}</head><body class='{escape(body_class)}'>{body}</body></html>"
    )


def sign_in(message: str = "", next_url: str = "/") -> str:
    """The sign-in form (`message`: why the last attempt failed)."""
    note = f"<p class='problem' id='problem'>{escape(message)}</p>" if message else ""
    return _page(
        "Sign in",
        "<main class='signin'><h1>Studio console</h1>"
        f"{note}<form method='post' action='/signin'>"
        f"<input type='hidden' name='next' value='{escape(next_url)}'>"
        "<label>Name <input name='name' id='name' autocomplete='username' required></label>"
        "<label>Password <input name='password' id='password' type='password' "
        "autocomplete='current-password' required></label>"
        "<button type='submit' id='signin'>Sign in</button></form></main>",
    )


def _bar(name: str, role: str, csrf: str) -> str:
    return (
        "<header class='bar'><a href='/'>Tables</a>"
        f"<span class='who' id='who'>{escape(name)} ({escape(role)})</span>"
        "<form method='post' action='/signout'>"
        f"<input type='hidden' name='csrf' value='{escape(csrf)}'>"
        "<button type='submit'>Sign out</button></form></header>"
    )


def dealer(table: str, name: str, role: str, csrf: str, may_call: bool) -> str:
    """The dealer display shell for `table` (dealer.js fills it from /ws/dealer/TABLE)."""
    call = "<button id='call-manager' class='call'>Call shift manager</button>" if may_call else ""
    return _page(
        f"Dealer display {table}",
        f"<main id='dealer' data-table='{escape(table)}' data-csrf='{escape(csrf)}'>"
        "<div class='top'><span id='phase' class='phase'>…</span>"
        "<span id='game' class='game'></span>"
        "<span id='link' class='link'></span></div>"
        "<div class='light-row'><span id='light' class='light'></span>"
        "<span id='light-countdown' class='countdown'></span></div>"
        "<div id='prompt' class='prompt'></div>"
        "<div id='window' class='window'></div>"
        "<div id='cards' class='cards'></div>"
        f"<footer class='dealer-foot'><span class='who'>{escape(name)} ({escape(role)})</span>"
        f"{call}</footer>"
        "<div id='stop' class='stop' hidden><div class='stop-title'>STOP: shift manager called"
        "</div><div id='stop-reason' class='stop-reason'></div></div></main>",
        script="dealer.js",
        body_class="dealer-body",
    )


def overview(name: str, role: str, csrf: str) -> str:
    """The shift manager's overview of every table (console.js fills it from /ws/console)."""
    return _page(
        "Tables",
        _bar(name, role, csrf) + f"<main id='overview' data-csrf='{escape(csrf)}'>"
        "<div id='alarm' class='alarm' hidden>TABLE PAUSED</div>"
        "<button id='sound' class='sound'>Sound on</button>"
        "<table class='tables'><thead><tr><th>Table</th><th>State</th><th>Phase</th>"
        "<th>Game</th><th>Incident</th><th>Devices</th><th>Last event</th><th></th></tr></thead>"
        "<tbody id='rows'></tbody></table></main>",
        script="console.js",
    )


def table(table_id: str, name: str, role: str, csrf: str) -> str:
    """A table's page for the shift manager (table.js fills it from /ws/table/TABLE)."""
    t = escape(table_id)
    return _page(
        f"Table {table_id}",
        _bar(name, role, csrf) + f"<main id='table' data-table='{t}' data-csrf='{escape(csrf)}' "
        f"data-role='{escape(role)}'>"
        f"<h1>Table {t} <a href='/table/{t}/recall'>last ten rounds</a> "
        f"<a href='/dealer/{t}'>dealer display</a></h1>"
        "<p id='state' class='state'></p>"
        "<section><h2>Incident</h2><div id='incidents'></div></section>"
        "<section><h2>Round so far</h2><div id='round' class='cards small'></div></section>"
        "<section><h2>To clear the pause</h2><ul id='blockers'></ul>"
        "<div id='actions' class='actions'></div><p id='answer' class='answer'></p></section>"
        "<dialog id='confirm'><form method='dialog'><p id='confirm-text'></p>"
        "<div id='confirm-fields'></div>"
        "<button value='cancel' id='confirm-cancel'>Cancel</button>"
        "<button value='ok' id='confirm-ok'>Confirm</button></form></dialog></main>",
        script="table.js",
    )


def recall(page: RecallPage, name: str, role: str, csrf: str) -> str:
    """The last ten rounds of a table, with the shift's counts per dealer."""
    rows = []
    for rnd in reversed(page.rounds):
        shown = rnd.cards if page.restricted else rnd.public_cards
        cards = " ".join(f"{escape(p)}={escape(c)}" for p, c in shown.items()) or "-"
        steps = rnd.decisions + rnd.commands if page.restricted else rnd.decisions
        decisions = "<br>".join(escape(d) for d in steps) or "-"
        faults = rnd.incidents if page.restricted else rnd.public_incidents
        incidents = "<br>".join(escape(i) for i in faults) or "-"
        rows.append(
            f"<tr class='round'><td>{escape(rnd.game_number)}</td><td>{escape(rnd.opened)}</td>"
            f"<td>{cards}</td><td>{decisions}</td><td>{incidents}</td>"
            f"<td>{escape(rnd.outcome)}</td></tr>"
        )
    counts = "".join(
        f"<tr><td>{escape(dealer)}</td><td>{c.rounds}</td><td>{c.voids}</td>"
        f"<td>{escape(', '.join(f'{k} {v}' for k, v in sorted(c.incidents.items())) or '-')}"
        "</td></tr>"
        for dealer, c in sorted(page.counts.items())
    )
    return _page(
        f"Recall {page.table}",
        _bar(name, role, csrf)
        + f"<main><h1>Table {escape(page.table)}: last {len(page.rounds)} rounds</h1>"
        "<table class='recall'><thead><tr><th>Game</th><th>Opened</th><th>Cards</th>"
        "<th>Decisions</th><th>Incidents</th><th>Result</th></tr></thead>"
        f"<tbody id='recall'>{''.join(rows)}</tbody></table>"
        "<h2>This shift, by dealer</h2><table class='counts'><thead><tr><th>Dealer</th>"
        "<th>Rounds</th><th>Voids</th><th>Incidents</th></tr></thead>"
        f"<tbody id='counts'>{counts}</tbody></table></main>",
    )
