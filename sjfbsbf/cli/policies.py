"""``sjfbsbf policies [NAME]``: what each registered policy does and its options, read from its
code (:mod:`sjfbsbf.policies.describe`)."""

from __future__ import annotations

from typing import Annotated

import typer

from sjfbsbf.cli.common import EXIT_DATA_ERROR, app, fail, registered_policies, stdout


@app.command("policies")
def list_policies(
    name: Annotated[
        str | None,
        typer.Argument(
            metavar="[NAME]",
            help="One policy, in full: each option's type, default and meaning.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """List the registered policies: what each does and its options (read from its code)."""
    from rich.markup import escape
    from rich.table import Table

    from sjfbsbf.policies import make_policy
    from sjfbsbf.policies.describe import policy_doc
    from sjfbsbf.policies.registry import unknown_policy

    registered = registered_policies()
    console = stdout()
    if name is not None:
        if name not in registered:
            raise typer.BadParameter(unknown_policy(name, list(registered)), param_hint="'NAME'")
        try:
            doc, policy = policy_doc(name), make_policy(name)
        except ValueError as exc:  # a plugin that does not load
            fail(f"sjfbsbf: error: {exc}", EXIT_DATA_ERROR)
        console.print(f"{name}: {doc.summary}", markup=False, soft_wrap=True)
        flags = (("preemptive", "preemptive"), ("sharing", "shares GPUs"))
        facts = [f"{label}: {_yes_no(getattr(policy, attr, None))}" for attr, label in flags]
        console.print(", ".join(facts), markup=False)
        if not doc.options:
            console.print("no options")
            return
        options = Table(box=None, pad_edge=False)
        for header in ("option", "type", "default", "meaning"):
            options.add_column(header)
        for option in doc.options:
            options.add_row(*(escape(t) for t in (option.name, option.type, option.default)),
                            escape(option.meaning))  # fmt: skip
        console.print(options)
        console.print(f"[dim]set one with -o KEY=VALUE (several policies: -o {name}:KEY=VALUE)"
                      "[/dim]")  # fmt: skip
        return
    table = Table(box=None, pad_edge=False)
    for header in ("policy", "preemptive", "sharing", "what it does", "options (default)"):
        table.add_column(header)
    for policy_name in registered:  # each runs on an instance alone, with default options
        try:
            doc, policy = policy_doc(policy_name), make_policy(policy_name)
        except ValueError as exc:  # a plugin that does not load
            table.add_row(escape(policy_name), "", "", escape(str(exc)), "")
            continue
        table.add_row(
            escape(policy_name),
            _yes_no(getattr(policy, "preemptive", None)),
            _yes_no(getattr(policy, "sharing", None)),
            escape(doc.summary),
            escape(", ".join(f"{o.name}={o.default}" for o in doc.options) or "none"),
        )
    console.print(table)
    console.print(
        "[dim]sjfbsbf policies NAME: one policy's options in full. planned (replays a given "
        "schedule, e.g. an offline optimum) is used by `sjfbsbf solve` and from Python; it "
        "cannot run on an instance alone.[/dim]"
    )


def _yes_no(flag: object) -> str:
    return "" if flag is None else ("yes" if flag else "no")
