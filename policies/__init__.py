"""Bandit policies, environments and the vectorised simulator (built in the simulator issue)."""
