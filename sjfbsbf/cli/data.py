"""``sjfbsbf data list`` and ``sjfbsbf data fetch NAME [--from PATH]``: public datasets by name."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sjfbsbf.cli.common import app, stdout

data_app = typer.Typer(
    help="Public datasets: list them, fetch one into the per-user cache.",
    context_settings={"help_option_names": ["-h", "--help"]},
    no_args_is_help=True,
)
app.add_typer(data_app, name="data")


@data_app.command("list")
def list_datasets() -> None:
    """List the registered datasets, their size, whether they are fetched and checksum-pinned."""
    from rich.table import Table

    from sjfbsbf.workloads.datasets import DATASETS, cache_dir, status

    table = Table(title=f"datasets (cache: {cache_dir()})")
    for column in ("name", "files", "MB", "status", "checksum", "licence", "description"):
        table.add_column(column, justify="right" if column in ("files", "MB") else "left")
    for name, dataset in sorted(DATASETS.items()):
        table.add_row(
            name,
            str(len(dataset.files)),
            f"{dataset.size / 1e6:.1f}",
            status(name),
            "pinned" if dataset.verified else "unverified",
            dataset.licence,
            dataset.description,
        )
    stdout().print(table)


@data_app.command("fetch")
def fetch_dataset(
    name: Annotated[str, typer.Argument(metavar="NAME", help="A name from 'sjfbsbf data list'.")],
    source: Annotated[
        Path | None,
        typer.Option(
            "--from",
            metavar="PATH",
            help="Register a copy from this folder instead of downloading (checked the same).",
        ),
    ] = None,
) -> None:
    """Download a dataset (pinned URLs, SHA-256 checked) into the per-user cache.

    A dataset without published checksums ("unverified") is checked for a plausible size and its
    format; the SHA-256 of each of its files is printed, to compare with other copies.
    """
    import hashlib

    from sjfbsbf.workloads.datasets import fetch, get_dataset

    dataset = get_dataset(name)
    folder = fetch(name, source=source)
    checked = "checked" if dataset.verified else "unverified: size and format checked"
    stdout().print(
        f"{name}: {len(dataset.files)} files, {dataset.size / 1e6:.1f} MB, {checked} -> {folder}",
        markup=False,
        soft_wrap=True,
    )
    for file in dataset.files:
        if file.sha256 is None:
            with (folder / file.name).open("rb") as handle:
                digest = hashlib.file_digest(handle, "sha256").hexdigest()
            stdout().print(f"{file.name}: SHA-256 {digest}", markup=False, soft_wrap=True)
