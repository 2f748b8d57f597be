"""Instance generators and trace loaders."""

from sjfbsbf.workloads.gavel import (
    MODEL_MAP,
    GavelThroughputs,
    LoadReport,
    load_gavel_trace,
    load_gavel_trace_report,
    load_throughputs,
    slice_trace,
)
from sjfbsbf.workloads.generators import (
    PHILLY_GPU_MIX,
    WorkloadSpec,
    default_workload,
    generate,
    testbed_workload,
)
from sjfbsbf.workloads.table_trace import TableTraceReport, read_trace_table
from sjfbsbf.workloads.transform import random_window

__all__ = [
    "MODEL_MAP",
    "PHILLY_GPU_MIX",
    "GavelThroughputs",
    "LoadReport",
    "TableTraceReport",
    "WorkloadSpec",
    "default_workload",
    "generate",
    "load_gavel_trace",
    "load_gavel_trace_report",
    "load_throughputs",
    "random_window",
    "read_trace_table",
    "slice_trace",
    "testbed_workload",
]
