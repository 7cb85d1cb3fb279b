"""Auditing a mechanism or a function: :mod:`.api` (the entry point), :mod:`.exact` (finite and density faces),
:mod:`.sampled` and :mod:`.runner` (Clopper–Pearson counting, chunked and distributed), :mod:`.events` and
:mod:`.learned` (the candidate events), :mod:`.attacks` (ready-made events for known attacks)."""
