"""Instance generators and trace loaders."""

from sjfbsbf.workloads.generators import (
    PHILLY_GPU_MIX,
    WorkloadSpec,
    default_workload,
    generate,
    testbed_workload,
)

__all__ = ["PHILLY_GPU_MIX", "WorkloadSpec", "default_workload", "generate", "testbed_workload"]
