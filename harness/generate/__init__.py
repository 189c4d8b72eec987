"""Generators of the committed models (harness/committed/): run offline, in a venv that has the exporter."""
