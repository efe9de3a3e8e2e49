"""Backends: each owns the bytes of one device type (see base.py for the contract)."""
