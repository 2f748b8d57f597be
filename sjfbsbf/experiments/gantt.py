"""Gantt charts of a simulated schedule: one row per GPU, one bar per job holding it.

:func:`plot_gantt` draws :attr:`sjfbsbf.sim.result.SimResult.placements` (kept when a simulation
records its segments, the default): each job's holdings of GPUs over time, coloured by job and
labelled with its id, its accumulation factor when it runs a sub-batch (``s2`` = the global batch
in two micro-batches) and the micro-batch size; where two jobs share a GPU each takes half of the
row (hatched), so shared stretches are visible; a black tick marks where each job completes (a
job that completes inside a tick holds its GPUs to the tick's end, docs/model.md §4). Headless
(Agg); PNG or PDF by the file's suffix, written atomically.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from sjfbsbf.core.atomic import atomic_path
from sjfbsbf.sim.result import SimResult

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Output formats by suffix.
FORMATS = {".png": "png", ".pdf": "pdf"}
#: Most job labels drawn (a larger chart keeps its bars and drops the text).
MAX_LABELS = 400


def gantt_bars(result: SimResult) -> pd.DataFrame:
    """The pieces a Gantt chart draws, one row per job, GPU and stretch of time in which the GPU
    holds the same jobs: ``job_id, gpu, start, end, lane, lanes, accumulation, sub_batch``;
    ``lanes`` is 2 where the GPU holds another job too (``lane`` 0 or 1 says which half of the
    row, kept for the whole holding), else 1.

    Raises
    ------
    ValueError
        If the result kept no placements (simulated with ``record_segments=False``).
    """
    placements = result.placements
    if placements is None:
        raise ValueError("the result kept no placements: simulate with record_segments=True")
    held: dict[int, list[tuple[float, float, int, int, Any]]] = {}  # gpu -> holdings
    records: list[dict[str, Any]] = placements.to_dict("records")  # type: ignore[assignment]
    for row in records:
        for gpu_text in str(row["gpus"]).split(";"):
            held.setdefault(int(gpu_text), []).append(
                (
                    float(row["start"]),
                    float(row["end"]),
                    int(row["job_id"]),
                    int(row["accumulation"]),
                    row["sub_batch"],
                )
            )
    rows: list[tuple[Any, ...]] = []
    for gpu in sorted(held):
        holdings = sorted(held[gpu], key=lambda h: (h[0], h[2]))
        busy_until = [float("-inf"), float("-inf")]  # per lane, when its holding ends
        lanes_of = []
        for start, end, *_ in holdings:
            free = [k for k in (0, 1) if busy_until[k] <= start]
            lane = free[0] if free else 0  # a GPU holds at most two jobs (docs/model.md §3)
            busy_until[lane] = end
            lanes_of.append(lane)
        for (start, end, job_id, accumulation, sub_batch), lane in zip(
            holdings, lanes_of, strict=True
        ):
            cuts = {start, end}
            for o_start, o_end, *_ in holdings:
                cuts.update(c for c in (o_start, o_end) if start < c < end)
            points = sorted(cuts)
            pieces: list[list[Any]] = []
            for left, right in itertools.pairwise(points):
                together = sum(1 for o in holdings if o[0] < right and left < o[1])
                lanes = 2 if together > 1 else 1
                if pieces and pieces[-1][5] == lanes:
                    pieces[-1][3] = right  # merge with the previous piece of the same state
                else:
                    pieces.append([job_id, gpu, left, right, lane, lanes])
            rows.extend((*piece, accumulation, sub_batch) for piece in pieces)
    columns = ["job_id", "gpu", "start", "end", "lane", "lanes", "accumulation", "sub_batch"]
    bars = pd.DataFrame(rows, columns=columns)
    bars["sub_batch"] = bars["sub_batch"].astype("Int64")
    return bars.sort_values(["gpu", "start", "job_id"], kind="stable").reset_index(drop=True)


#: Distinct colours before they repeat: tab20, tab20b and tab20c in turn (60; tab20 alone
#: repeated every 20 jobs, so j6, j26 and j46 looked alike).
PALETTE_SIZE = 60


def job_colour(job_id: int) -> tuple[float, float, float, float]:
    """The colour of job ``job_id``: the 60-colour palette in turn, the same job always alike."""
    import matplotlib

    index = job_id % PALETTE_SIZE
    name = ("tab20", "tab20b", "tab20c")[index // 20]
    colour: tuple[float, float, float, float] = matplotlib.colormaps[name](index % 20)
    return colour


def plot_gantt(
    result: SimResult,
    path: str | os.PathLike[str] | None = None,
    *,
    num_gpus: int | None = None,
    title: str | None = None,
) -> Figure:
    """Draw the schedule of ``result`` per GPU over time; write it to ``path`` if given.

    Parameters
    ----------
    result
        A simulation that kept its placements (the default of :func:`sjfbsbf.sim.simulate`).
    path
        Output file, ``.png`` or ``.pdf`` (``None``: only return the figure).
    num_gpus
        Rows to draw (default: up to the highest GPU id used).
    title
        Figure title (default: the policy and its average JCT).

    Returns
    -------
    matplotlib.figure.Figure
        The figure (closed after writing when ``path`` is given; still drawable by a caller
        such as Jupyter's inline display).

    Raises
    ------
    ValueError
        For an unsupported suffix, or a result without placements.
    """
    suffix = None if path is None else Path(path).suffix.lower()
    if suffix is not None and suffix not in FORMATS:
        raise ValueError(f"{path}: a Gantt chart is written as .png or .pdf, not {suffix!r}")
    bars = gantt_bars(result)
    import matplotlib

    if path is not None:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    if num_gpus is None:
        num_gpus = result.params.get("num_gpus")
    rows = num_gpus if num_gpus is not None else int(bars["gpu"].max()) + 1 if len(bars) else 1
    horizon = float(bars["end"].max()) if len(bars) else 1.0
    fig, ax = plt.subplots(figsize=(11.0, max(3.0, 0.45 * rows + 2.0)), layout="constrained")
    label = len(bars) <= MAX_LABELS
    finish = dict(zip(result.jobs["job_id"].tolist(), result.jobs["finish"].tolist(), strict=True))
    pieces: list[dict[str, Any]] = bars.to_dict("records")  # type: ignore[assignment]
    for bar in pieces:
        job_id, start, end = int(bar["job_id"]), float(bar["start"]), float(bar["end"])
        shared = int(bar["lanes"]) == 2
        height = 0.4 if shared else 0.8
        bottom = int(bar["gpu"]) - 0.4 + (int(bar["lane"]) * height if shared else 0.0)
        ax.barh(
            bottom,
            end - start,
            left=start,
            height=height,
            align="edge",
            color=job_colour(job_id),
            edgecolor="black",
            linewidth=0.4,
            hatch="//" if shared else None,
        )
        if label:
            text = f"j{job_id}"
            accumulation, sub_batch = int(bar["accumulation"]), bar["sub_batch"]
            if accumulation > 1:
                text += f" s{accumulation}"
                if not pd.isna(sub_batch):
                    text += f" b{int(sub_batch)}"
            ax.text(
                (start + end) / 2,
                bottom + height / 2,
                text,
                ha="center",
                va="center",
                fontsize=7 if shared else 8,
                clip_on=True,
            )
        done = float(finish[job_id])
        if start < done <= end:  # the job completes in this piece: a tick where it does
            ax.plot([done, done], [bottom, bottom + height], color="black", linewidth=1.2)
    per_node = result.params.get("gpus_per_node")
    names = [f"GPU {g}" for g in range(rows)]
    if per_node and rows > per_node:  # several nodes: name each row's node, draw the boundaries
        names = [f"n{g // per_node} · GPU {g}" for g in range(rows)]
        for boundary in range(per_node, rows, per_node):
            ax.axhline(boundary - 0.5, color="black", linewidth=1.0, linestyle="--")
    ax.set_yticks(range(rows), names)
    ax.set_ylim(rows - 0.5, -0.5)
    ax.set_xlim(0.0, horizon * 1.01)
    ax.set_xlabel("time (s)")
    ax.grid(axis="x", alpha=0.3)
    ax.set_axisbelow(True)
    handles = [
        Patch(facecolor="white", edgecolor="black", hatch="//", label="shared GPU (half row)"),
        Patch(facecolor="white", edgecolor="black", label="jN sK bM: job, accumulation, sub-batch"),
        Line2D([], [], color="black", linewidth=1.2, marker="|", markersize=10, linestyle="none",
               label="the job completes"),
    ]  # fmt: skip
    if per_node and rows > per_node:
        handles.append(Line2D([], [], color="black", linestyle="--", label="node boundary"))
    # Outside the axes, below the time axis's label: never over it, whatever the height.
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), fontsize=8,
               frameon=False)  # fmt: skip
    jct = result.metrics.get("avg_jct")
    default = f"{result.policy}: average JCT {jct:,.1f} s" if jct is not None else result.policy
    ax.set_title(title if title is not None else default)
    if path is not None:
        assert suffix is not None
        try:
            with atomic_path(path) as tmp:
                fig.savefig(tmp, format=FORMATS[suffix], dpi=120)
        finally:
            plt.close(fig)
    return fig
