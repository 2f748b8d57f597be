"""The registered public datasets: pinned URLs, SHA-256 and sizes (docs/model.md §8).

:mod:`sjfbsbf.workloads.datasets` fetches, checks and resolves them; this module only states
them. A file whose source publishes no checksum has ``sha256=None`` (*unverified*) and a format
check instead.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Gavel's repository at the pinned commit (raw files).
_GAVEL = (
    "https://raw.githubusercontent.com/stanford-futuredata/gavel/"
    "c4fa40097339e9608ab71fd64c8bdea96a5e4a4c/scheduler/"
)
#: Philly's trace archive (Git LFS) at msr-fiddle/philly-traces' last commit, 29a1b87 (2019-08-30);
#: the LFS pointer (unchanged since the first commit, 9425c49) states its SHA-256 and size.
_PHILLY = (
    "https://media.githubusercontent.com/media/msr-fiddle/philly-traces/"
    "29a1b87fa2d9ed80b83c9e3a37f3a88d382b031d/trace-data.tar.gz"
)
#: Helios' data.zip, a plain git file (no LFS) of S-Lab-System-Group/HeliosData at commit 159f0ca
#: (2022-09-27, "Release full dataset"); no checksum is published (its git blob id is 1a48d5e0).
_HELIOS = (
    "https://github.com/S-Lab-System-Group/HeliosData/raw/"
    "159f0caeec16600b9b6017862952a36aae01c43f/data.zip"
)
#: Alibaba's PAI GPU trace 2020 on Aliyun OSS (alibaba/clusterdata, cluster-trace-gpu-v2020/data).
#: Its README publishes the SHA-256 of each archive; the sizes are those of the Git LFS pointers
#: the repository held until commit 02a1be1 (2023-03-20; pointers at f24dfac), same SHA-256.
_PAI = "https://aliopentrace.oss-cn-beijing.aliyuncs.com/v2020GPUTraces/"


@dataclass(frozen=True, slots=True)
class DataFile:
    """One file of a dataset: its name in the dataset's folder, URL, SHA-256 and size (bytes).

    ``sha256=None`` marks an unverified file: ``size`` is then the size its source states, and
    ``check`` names (``"module:function"``) a function of the file's path returning why it is
    not in the expected format, or ``None``.
    """

    name: str
    url: str
    sha256: str | None
    size: int
    check: str | None = None


@dataclass(frozen=True, slots=True)
class Dataset:
    """A named dataset: description, source, licence and its files."""

    name: str
    description: str
    source: str
    licence: str
    files: tuple[DataFile, ...]

    @property
    def size(self) -> int:
        """Total size (bytes; stated by the source for unverified files)."""
        return sum(f.size for f in self.files)

    @property
    def verified(self) -> bool:
        """Whether every file is pinned to a SHA-256."""
        return all(f.sha256 is not None for f in self.files)


_TRACES = {  # Gavel's Philly-derived traces, scheduler/traces/msr/seed=0/<vc>.trace
    "0e4a51": ("952a5ca0842149b7a0f2cbfd072acb0f97765f05ef829b4ab71db0752ef08d00", 224104),
    "103959": ("993c5d59d0b7447597e252b900670356623bda10dad0a4487588e3d839523442", 186671),
    "11cb48": ("21785530a830116cbfde74aaff23ac14f71396888453f388b5caeaf3695102ca", 378432),
    "23dbec": ("5e77c69605651395c7610f85678205709009d401a299ae16b5af47f7f04c2714", 1688),
    "2869ce": ("f2ea5209f8d8d2844aefc2ffc0cd9e7e08a53ec0c3f8bbe9d6f336e29d93fa3c", 100966),
    "51b7ef": ("56dfc3e66adbdf48f65db0881e4f31d7e81e8555fdaef6380605d011512e503f", 3398),
    "6214e9": ("4deab594cec0d1400347e2c1e58998c197075b084b7473990d561c0e838f662d", 378201),
    "6c71a0": ("dfd3ae4c9b4d886b2146ed41b6adc9f0105e21ecda3bff33459844c232b18f0e", 378457),
    "795a4c": ("52a95b1f5b9bda0bd0bec1fd35d3ef04dd50d6da091b99bfed7296bc13cabab8", 596),
    "7f04ca": ("e999948ee9c399c0c2cd247ecd6d057309e9939004af4d57fe92c213882e1647", 184431),
    "925e2b": ("8964aed38ba3a5e88addfc6402d3dc215b0693227cd89204c801815a7c92e833", 786),
    "b436b2": ("36d7d8e239846e7d7423b729ae174cc5e3f42bde46245ae08650da8800887317", 377167),
    "e13805": ("76a5d2119774f81f1107091833fb18039faed8618cd7829cbf5829f74231fe2d", 114754),
    "ed69ec": ("498b1cdae5247e842e6d6875fe7fecde8ab28ceb1bb4525bb1f25f37f9241597", 179642),
    "ee9e8c": ("ce629ae806113d60daa51dd9423030333a1abf45ee2a51c1013cdfdc49782a5c", 379404),
}

#: The registered datasets by name.
DATASETS: dict[str, Dataset] = {
    "gavel-throughputs": Dataset(
        name="gavel-throughputs",
        description="Gavel's measured throughputs of 26 job types on K80/P100/V100, alone and "
        "in pairs (simulation_throughputs.json)",
        source="github.com/stanford-futuredata/gavel @ c4fa400",
        licence="MIT",
        files=(
            DataFile(
                "simulation_throughputs.json",
                _GAVEL + "simulation_throughputs.json",
                "17111f7295f03265fd9e5118d7eba31e3dd9d6e50a2e215c13ad3d3f91f74381",
                1240176,
            ),
        ),
    ),
    "gavel-traces": Dataset(
        name="gavel-traces",
        description="15 job traces derived from Microsoft's Philly trace, one per virtual "
        "cluster, 15,264 jobs (Gavel's msr seed 0)",
        source="github.com/stanford-futuredata/gavel @ c4fa400",
        licence="MIT (Philly data CC-BY-4.0)",
        files=tuple(
            DataFile(f"{vc}.trace", f"{_GAVEL}traces/msr/seed=0/{vc}.trace", digest, size)
            for vc, (digest, size) in sorted(_TRACES.items())
        ),
    ),
    "philly-jobs": Dataset(
        name="philly-jobs",
        description="Microsoft's Philly trace (117,325 jobs, Aug-Dec 2017): job log "
        "cluster_job_log and GPU/CPU/memory utilisation (load_philly_job_log)",
        source="github.com/msr-fiddle/philly-traces @ 29a1b87 (Git LFS)",
        licence="CC-BY-4.0",
        files=(
            DataFile(
                "trace-data.tar.gz",
                _PHILLY,
                "2037ccf63a725a02be718b0e1aeee6142c90b7f62d0d849295120e9f6ba13d2c",
                1055988361,
            ),
        ),
    ),
    "helios": Dataset(
        name="helios",
        description="SenseTime's Helios traces (SC '21): job logs of the GPU clusters Earth, "
        "Saturn, Uranus and Venus, 3.36 M jobs, Apr-Sep 2020 (load_helios_log)",
        source="github.com/S-Lab-System-Group/HeliosData @ 159f0ca (unverified)",
        licence="CC-BY-4.0",
        files=(
            DataFile(
                "data.zip",
                _HELIOS,
                None,
                36_400_000,  # "Compressed dataset size: 36.4MB" (README)
                check="sjfbsbf.workloads.helios:check_helios_archive",
            ),
        ),
    ),
    "pai-gpu-2020": Dataset(
        name="pai-gpu-2020",
        description="Alibaba PAI GPU cluster trace 2020 (~6,500 GPUs, Jul-Aug 2020): the job "
        "and task tables (load_pai_trace)",
        source="github.com/alibaba/clusterdata cluster-trace-gpu-v2020 (Aliyun OSS)",
        licence="CC-BY-4.0",
        files=(
            DataFile(
                "pai_job_table.tar.gz",
                _PAI + "pai_job_table.tar.gz",
                "5aad7f7caac501136d14ed6a48e40546f825d7b0617a3a4f337e2348fe0a6cb0",
                62065432,
            ),
            DataFile(
                "pai_task_table.tar.gz",
                _PAI + "pai_task_table.tar.gz",
                "cd1d6dc3215d2a8607ccf6b6dd952b5db776df86926c73259fea7c1499ac40e5",
                35514117,
            ),
        ),
    ),
}
