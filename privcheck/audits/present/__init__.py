"""Presentation: a report in words (:mod:`.text`) and drawn (:mod:`.figure`).  Nothing in the engines imports it."""
