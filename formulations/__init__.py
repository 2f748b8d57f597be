"""Exact formulations (MILP with PuLP/HiGHS, CP-SAT with OR-Tools) of the scheduling decisions."""
