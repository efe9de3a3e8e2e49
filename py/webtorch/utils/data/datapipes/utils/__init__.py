"""Helpers of the built-in DataPipes."""
