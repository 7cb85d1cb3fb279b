"""Symbolic and certified-numeric checks of the claims privcheck relies on (built in the proofs issue)."""
