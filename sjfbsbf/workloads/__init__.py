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
from sjfbsbf.workloads.gavel_options import load_gavel_trace_with
from sjfbsbf.workloads.generators import (
    PHILLY_GPU_MIX,
    WorkloadSpec,
    default_workload,
    generate,
    testbed_workload,
)
from sjfbsbf.workloads.helios import load_helios_log
from sjfbsbf.workloads.pai import load_pai_trace
from sjfbsbf.workloads.philly_log import load_philly_job_log
from sjfbsbf.workloads.table_trace import TableTraceReport, read_trace_table
from sjfbsbf.workloads.trace_window import TraceOptions, TraceReport
from sjfbsbf.workloads.transform import random_window

__all__ = [
    "MODEL_MAP",
    "PHILLY_GPU_MIX",
    "GavelThroughputs",
    "LoadReport",
    "TableTraceReport",
    "TraceOptions",
    "TraceReport",
    "WorkloadSpec",
    "default_workload",
    "generate",
    "load_gavel_trace",
    "load_gavel_trace_report",
    "load_gavel_trace_with",
    "load_helios_log",
    "load_pai_trace",
    "load_philly_job_log",
    "load_throughputs",
    "random_window",
    "read_trace_table",
    "slice_trace",
    "testbed_workload",
]
