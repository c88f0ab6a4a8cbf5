"""Training records: metrics as JSON lines (and optionally TensorBoard), and the learning curves."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jaxcheckers.extras import pyplot

__all__ = ["MetricsLog", "read_metrics", "plot_learning_curves", "METRICS_FILE", "CURVES_FILE"]

METRICS_FILE = "metrics.jsonl"
CURVES_FILE = "learning_curves.png"


class MetricsLog:
    """Appends one JSON object per line to `run_dir/metrics.jsonl`; mirrors to TensorBoard.

    keep_through: the update a resumed run restarts from. Rows of later updates (written before
    an interruption, after the last checkpoint) are dropped from the file, so that the updates
    played again are not listed twice. `dropped` says how many went.

    TensorBoard needs `tensorboardX` (or PyTorch's writer); without either, the flag says so and
    the JSON lines are still written.
    """

    def __init__(
        self, run_dir: str | Path, tensorboard: bool = False, keep_through: int | None = None
    ):
        self.path = Path(run_dir) / METRICS_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.dropped = 0
        self.last_update = 0
        if keep_through is not None and self.path.exists():
            self.dropped = _drop_rows_after(self.path, keep_through)
            self.last_update = keep_through
        self.file = self.path.open("a")
        self.writer = _tensorboard_writer(Path(run_dir) / "tensorboard") if tensorboard else None

    def write(self, row: dict[str, Any]) -> None:
        self.file.write(json.dumps(row, sort_keys=True) + "\n")
        self.file.flush()
        self.last_update = max(self.last_update, int(row.get("update", 0)))
        if self.writer is not None:
            step = int(row.get("env_steps", 0))
            for name, value in row.items():
                if isinstance(value, (int, float)) and name != "env_steps":
                    self.writer.add_scalar(name, value, step)

    def close(self) -> None:
        self.file.close()
        if self.writer is not None:
            self.writer.close()


def _drop_rows_after(path: Path, update: int) -> int:
    """Rewrites `path` without the rows of updates after `update` (and any line cut short by a
    crash); how many lines went."""
    kept, dropped = [], 0
    for line in path.read_text().splitlines():
        try:
            row = json.loads(line)
            keep = int(row.get("update", 0)) <= update
        except (ValueError, TypeError, AttributeError):
            keep = False
        if keep:
            kept.append(line)
        elif line.strip():
            dropped += 1
    if dropped:
        temporary = path.with_suffix(".tmp")
        temporary.write_text("".join(line + "\n" for line in kept))
        temporary.replace(path)
    return dropped


def _tensorboard_writer(directory: Path):
    try:
        from tensorboardX import SummaryWriter
    except ModuleNotFoundError:
        try:
            from torch.utils.tensorboard import SummaryWriter
        except ModuleNotFoundError:
            print("TensorBoard: install tensorboardX to write event files; JSON lines only.")
            return None
    return SummaryWriter(str(directory))


def read_metrics(run_dir: str | Path) -> list[dict[str, Any]]:
    path = Path(run_dir) / METRICS_FILE
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def plot_learning_curves(run_dir: str | Path, output: str | Path | None = None) -> Path:
    """A PNG of the losses, entropy, game length and evaluation scores against env steps."""
    plt = pyplot("the learning curves")

    rows = read_metrics(run_dir)
    output = Path(output) if output else Path(run_dir) / CURVES_FILE
    figure, axes = plt.subplots(2, 2, figsize=(11, 7), constrained_layout=True)

    def curve(axis, name, label=None):
        points = [(r["env_steps"], r[name]) for r in rows if name in r]
        if points:
            xs, ys = zip(*points, strict=True)
            axis.plot(xs, ys, label=label or name)

    curve(axes[0, 0], "policy_loss")
    curve(axes[0, 0], "value_loss")
    axes[0, 0].set_title("losses")
    curve(axes[0, 1], "entropy")
    axes[0, 1].set_title("policy entropy (legal actions)")
    curve(axes[1, 0], "game_length")
    axes[1, 0].set_title("self-play game length (steps)")
    opponents = sorted({k.split("/")[1] for r in rows for k in r if k.startswith("eval/")})
    for opponent in opponents:
        curve(axes[1, 1], f"eval/{opponent}/win_rate", f"wins vs {opponent}")
        curve(axes[1, 1], f"eval/{opponent}/score", f"score vs {opponent}")
    axes[1, 1].set_title("evaluation (both seats)")
    axes[1, 1].set_ylim(-0.02, 1.02)
    for axis in axes.flat:
        axis.set_xlabel("env steps")
        if axis.lines:
            axis.legend(fontsize=8)
    figure.savefig(output, dpi=100)
    plt.close(figure)
    return output
