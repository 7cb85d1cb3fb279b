"""Auditing a bandit policy: :mod:`.api` (the entry point), :mod:`.adapters` (a policy as a mechanism),
:mod:`.adversaries` (Interactive DP's), :mod:`.inputs` (the searched reward tables), :mod:`.tables` (Table/View
DP by enumeration), :mod:`.interactive` (Interactive DP by backward induction), :mod:`.local` (each user's report).
The built-in policies' audited instances are decided in :mod:`privcheck.policies.registry`."""
