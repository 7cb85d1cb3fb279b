"""The audit engines, by family, over a shared base.

* The base — what every engine computes and how it is judged: :mod:`.figures` (certified figures),
  :mod:`.rules` (which figure decides which claim), :mod:`.verdict` (the one verdict), :mod:`.result` (the one
  engine result), :mod:`.report` (the report and its one builder), :mod:`.options` (the one options object),
  :mod:`.stats` (Clopper–Pearson bounds and event scores), :mod:`.escalate` and :mod:`.pairwise` (exact
  refinement and the pairwise figures of enumerated distributions).  The base imports no engine.
* :mod:`.mechanism` — auditing a mechanism or a function: the entry point, the exact faces, the sampled engine
  and its runner, the events, the learned events, the ready-made attacks.
* :mod:`.policy` — auditing a bandit policy: the entry point, the adapters that make a policy a mechanism, the
  interactive adversaries, the searched inputs, Table/View enumeration, interactive backward induction, the
  local audit.
* :mod:`.present` — a report in words and drawn; nothing in the engines imports it.

The public entry points are :func:`privcheck.audit` and :func:`privcheck.audit_policy`.
"""
