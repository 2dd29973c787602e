"""Evaluation reports: every run writes `results.json`, a Markdown `summary.md` (with the command that
reproduces it) and PNG plots into an output folder, and prints a summary table."""

from __future__ import annotations

import json
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def out_dir(base: str | None, command: str) -> Path:
    d = Path(base) if base else Path("eval-out") / f"{command}-{time.strftime('%Y%m%d-%H%M%S')}"
    d.mkdir(parents=True, exist_ok=True)
    return d


def command_line(argv: Sequence[str] | None = None) -> str:
    """The command that reproduces a run: the arguments `citegraph` was given (`argv` when it was
    called as a function, e.g. `main([...])` from a notebook)."""
    return "citegraph " + " ".join(shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv))


def table(rows: dict[str, dict[str, Any]], columns: Sequence[str]) -> str:
    """A Markdown table: one row per configuration."""
    head = "| configuration | " + " | ".join(columns) + " |"
    sep = "|---|" + "---|" * len(columns)
    body = [f"| {name} | " + " | ".join(_fmt(vals.get(c)) for c in columns) + " |" for name, vals in rows.items()]
    return "\n".join([head, sep, *body])


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4f}" if abs(v) < 10 else f"{v:.1f}"
    if isinstance(v, tuple):  # an interval
        return "–".join(_fmt(x) for x in v)
    return "–" if v is None else str(v)


def flat(results: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in results.items() if not isinstance(v, dict | list)}


def write(
    folder: Path, title: str, results: dict[str, Any], markdown: str = "", argv: Sequence[str] | None = None
) -> None:
    results = {**results, "command": command_line(argv)}
    (folder / "results.json").write_text(json.dumps(results, indent=2, default=str))
    lines = [f"# {title}", "", f"Reproduce: `{results['command']}`", ""]
    scalars = flat(results)
    scalars.pop("command", None)
    if scalars:
        lines += ["| metric | value |", "|---|---|", *[f"| {k} | {_fmt(v)} |" for k, v in scalars.items()], ""]
    if markdown:
        lines += [markdown, ""]
    pngs = sorted(p.name for p in folder.glob("*.png"))
    lines += [f"![{p}]({p})" for p in pngs]
    (folder / "summary.md").write_text("\n".join(lines) + "\n")


def bar_plot(folder: Path, name: str, rows: dict[str, dict[str, Any]], metrics: Sequence[str], title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    labels = list(rows)
    x = np.arange(len(labels))
    width = 0.8 / max(1, len(metrics))
    fig, ax = plt.subplots(figsize=(max(6, 0.55 * len(labels) + 2), 4.5))
    for i, m in enumerate(metrics):
        ax.bar(x + i * width, [rows[label].get(m) or 0 for label in labels], width, label=m)
    ax.set_xticks(x + width * (len(metrics) - 1) / 2, labels, rotation=35, ha="right", fontsize=8)
    ax.set_ylim(0, 1)
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(folder / f"{name}.png", dpi=110)
    plt.close(fig)


def curve_plot(
    folder: Path,
    name: str,
    x: Sequence[float],
    y: Sequence[float],
    auc: float,
    title: str,
    ci: tuple[float, float] | None = None,
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 5))
    interval = f", 95 % interval {ci[0]:.2f}-{ci[1]:.2f}" if ci else ""
    ax.plot(x, y, label=f"citegraph support score (area {auc:.3f}{interval})")
    ax.plot([0, 1], [0, 1], "--", color="grey", label="random ranking (area 0.5)")
    ax.set_xlabel("false abstentions (share of answerable questions)")
    ax.set_ylabel("correct abstentions (share of unanswerable questions)")
    ax.set_title(title)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(folder / f"{name}.png", dpi=110)
    plt.close(fig)


def scatter_plot(folder: Path, name: str, x: Sequence[float], ys: dict[str, Sequence[float]], title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(ys), figsize=(5 * len(ys), 4))
    for ax, (label, y) in zip(axes if len(ys) > 1 else [axes], ys.items(), strict=True):
        ax.scatter(x, y, s=3, alpha=0.3)
        ax.set_xlabel("passage length (word pieces)")
        ax.set_ylabel(label)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(folder / f"{name}.png", dpi=110)
    plt.close(fig)
