"""What `studio run` prints once its table is ready: where everything is, then `ready`.

One line per part (shoe, camera, journal, the four bus endpoints, keys, run file, metrics), the
commands that follow and command the table, and, when the table came back paused from its
journal, what a shift manager does about it. Tests and scripts wait for the last line,
`ready`; people read the rest.
"""

from __future__ import annotations

from pathlib import Path

from studio.config import RuntimeConfig
from studio.messages.view import TableView
from studio.runtime.parts import TableParts


def ready_banner(
    config: RuntimeConfig,
    parts: TableParts,
    view: TableView,
    *,
    recovery: str,
    dealer: bool,
    run_file: Path | None,
    metrics: str | None,
) -> str:
    """The lines to print, ending with `ready`.

    `recovery` is the journal's recovery summary, `dealer` whether the simulated dealer deals,
    `run_file` where the run file is, `metrics` the metrics server's address (None: off).
    """
    s = config.table
    streams = parts.publisher.endpoints
    keys = parts.keys
    who = "simulated dealer" if dealer else "no simulated dealer"
    lines = [
        f"table {s.table}: {s.game} ({s.variant}), {who}",
        f"  shoe        {parts.shoe.describe()}",
        f"  camera      {_camera_text(config, parts)}",
        f"  journal     {config.journal_path} ({recovery})",
        f"  public      {streams['public']}  (plain)",
        f"  restricted  {streams['restricted']}  (CURVE)",
        f"  replay      {parts.replay.endpoint}  (CURVE)",
        f"  commands    {parts.channel.endpoint}  (CURVE)",
        f"  keys        {keys.directory}  (table key {keys.server_public.name})",
        f"  manager key {keys.local_secret('shift-manager')}",
        f"  observer    {keys.local_secret('observer')}",
        f"  run file    {run_file}",
        f"  metrics     {_metrics_text(metrics)}",
        "  follow it:  studio watch        command it: studio command ACTION --key KEYFILE",
    ]
    if view.paused:
        # A restart mid-round latches a pause: say so, or the table seems never to deal.
        kinds = ", ".join(sorted({i.kind for i in view.incidents}))
        lines.append(
            f"  PAUSED      round {view.game_number} ({kinds}): a shift manager resumes"
            f" or voids it: studio command resume --key {keys.local_secret('shift-manager')}"
        )
    lines.append("ready")
    return "\n".join(lines)


def _metrics_text(where: str | None) -> str:
    if where is None:
        return "off ([metrics] enabled = false)"
    return f"{where}/metrics  (health {where}/healthz, ready {where}/readyz)"


def _camera_text(config: RuntimeConfig, parts: TableParts) -> str:
    if parts.camera is not None:
        return parts.camera.describe()
    if config.camera.backend == "simulated":
        return "simulated: the simulated dealer reports what lies where (no frames)"
    return "none"
