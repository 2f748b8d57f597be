"""Gavel's measured throughput table: parse ``simulation_throughputs.json``; Gavel's job families
and the default catalog's models that stand for them (:data:`MODEL_MAP`, :data:`CATALOG_ALIASES`).

Keys are Python tuple strings (``"('ResNet-50 (batch size 64)', 1)"``, parsed with
``ast.literal_eval``); the result is an immutable
:class:`~sjfbsbf.core.interference_table.GavelThroughputs`. Bad input raises
:class:`~sjfbsbf.core.errors.InstanceError` naming the file, the entry and the field.
"""

from __future__ import annotations

import ast
import math
import os
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.interference_table import GavelThroughputs
from sjfbsbf.core.jsonio import read_json

#: Gavel job family -> default-catalog model used by ``mode="catalog"``. Reasons: MODEL_MAP_REASONS.
MODEL_MAP: Mapping[str, str] = MappingProxyType(
    {
        "ResNet-18": "resnet18",
        "ResNet-50": "vgg19",
        "A3C": "a2c",
        "LM": "gpt2",
        "Transformer": "bert",
        "CycleGAN": "vgg16",
        "Recommendation": "shufflenet_v2",
    }
)

#: One-line reason for each :data:`MODEL_MAP` choice (V100 medians from Gavel's pair table).
MODEL_MAP_REASONS: Mapping[str, str] = MappingProxyType(
    {
        "ResNet-18": "same architecture (Gavel trains it on CIFAR-10, the catalog on ImageNet).",
        "ResNet-50": "heavy ImageNet CNN: Gavel's strongest aggressor (median ξ it causes 2.7 on "
        "V100) and most often out of memory, so the catalog's full-contention ImageNet CNN "
        "rather than the lighter resnet18.",
        "A3C": "same family: on-policy actor-critic reinforcement learning on Atari.",
        "LM": "language model on WikiText-2 (Gavel: LSTM), like the catalog's GPT-2; both memory "
        "heavy.",
        "Transformer": "Transformer (Gavel: translation on Multi30k); BERT is the catalog's "
        "Transformer.",
        "CycleGAN": "convolutional image-to-image model, full contention (median ξ it causes "
        "1.7 on V100), so the CNN VGG16.",
        "Recommendation": "light, non-convolutional model pressing moderately on co-runners "
        "(median ξ it causes 1.6 on V100, 1.4 on P100): the catalog's light model ShuffleNet-v2 "
        "(DQN/A2C would be lighter still).",
    }
)

#: Default-catalog model -> Gavel family, for ``MeasuredTableModel(aliases=...)`` on catalog
#: jobs: the inverse of :data:`MODEL_MAP`, plus DQN -> A3C (the other Atari RL workload).
CATALOG_ALIASES: Mapping[str, str] = MappingProxyType(
    {**{model: family for family, model in MODEL_MAP.items()}, "dqn": "A3C"}
)


def _parse_key(text: str, source: str, where: str) -> tuple[str, int]:
    try:
        key = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        key = None
    if (
        not isinstance(key, tuple)
        or len(key) != 2
        or not isinstance(key[0], str)
        or not isinstance(key[1], int)
        or isinstance(key[1], bool)
    ):
        raise InstanceError(
            f"key {text!r} is not a ('<job type>', <num_gpus>) tuple", source=source, row=where
        )
    return key[0], key[1]


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def throughputs_from_dict(data: Any, source: str = "<dict>") -> GavelThroughputs:
    """Build the table from the parsed JSON of ``simulation_throughputs.json``.

    Layout: ``{gpu_type: {"('<job type>', <num_gpus>)": {"null": solo_it_per_s,
    "('<other job type>', <num_gpus>)": [this_it_per_s, other_it_per_s]}}}``. Only pairs of
    single-GPU entries are kept (multi-GPU pairs are all ``[0, 0]``: never measured).

    Raises
    ------
    InstanceError
        Naming ``source`` and the entry, if the layout is not as above.
    """
    if not isinstance(data, dict):
        raise InstanceError("the top level must be an object of GPU types", source=source)
    solo: dict[str, dict[tuple[str, int], float]] = {}
    colocated: dict[str, dict[tuple[str, str], tuple[float, float]]] = {}
    for gpu_type, table in data.items():
        if not isinstance(table, dict):
            raise InstanceError("must be an object", source=source, row=gpu_type)
        solo[gpu_type] = {}
        colocated[gpu_type] = {}
        for key_text, entry in table.items():
            where = f"{gpu_type} {key_text}"
            job_type, gpus = _parse_key(key_text, source, gpu_type)
            if not isinstance(entry, dict) or "null" not in entry:
                raise InstanceError(
                    "must be an object with a 'null' entry", source=source, row=where
                )
            if not _number(entry["null"]) or entry["null"] < 0:
                raise InstanceError(
                    "solo throughput must be a non-negative number",
                    source=source,
                    row=where,
                    field="null",
                )
            solo[gpu_type][(job_type, gpus)] = float(entry["null"])
            for other_text, values in entry.items():
                if other_text == "null":
                    continue
                other, other_gpus = _parse_key(other_text, source, where)
                if (
                    not isinstance(values, list)
                    or len(values) != 2
                    or not all(_number(v) and v >= 0 for v in values)
                ):
                    raise InstanceError(
                        "must be a list of two non-negative throughputs",
                        source=source,
                        row=where,
                        field=other_text,
                    )
                if gpus == 1 and other_gpus == 1:
                    colocated[gpu_type][(job_type, other)] = (float(values[0]), float(values[1]))
    return GavelThroughputs(solo=solo, colocated=colocated, source=source)


def load_throughputs(path: str | os.PathLike[str]) -> GavelThroughputs:
    """Read Gavel's ``simulation_throughputs.json`` (keys are Python tuple strings).

    Raises
    ------
    InstanceError
        If the file cannot be read, is not JSON or does not have the expected layout.
    """
    return throughputs_from_dict(read_json(path), source=str(path))
