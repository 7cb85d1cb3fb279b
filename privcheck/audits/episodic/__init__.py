"""Audits of episodic agents (private reinforcement learning): :func:`~.api.audit_episodic`."""
