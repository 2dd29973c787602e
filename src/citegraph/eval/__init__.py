"""Evaluation in the package: BEIR-format datasets, metrics from ranx, runners and reports."""
