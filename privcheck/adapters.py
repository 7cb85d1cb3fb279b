"""Adapters: bandit code as the field writes it, run as privcheck's sequential protocol.

privcheck audits a policy written one object per run, ``act(t) -> arm`` and ``update(t, arm, reward)``
(:mod:`privcheck.core.sequential`).  Papers' code often has another shape; wrap its factory (or class) in one call
instead of writing the wrapper again::

    from privcheck import adapters, audit_policy, PureDP

    report = audit_policy(adapters.get_arm(MyUCB), PureDP(1.0), "table", horizon=200)

====================  =====================================================
adapter               the run object has
====================  =====================================================
``get_arm``           ``get_arm()`` and ``update(arm, reward)``
``get_arm_t``         ``get_arm(t)`` (t = 1 … T) and ``update(arm, reward)``
``get_arm_contexts``  ``get_arm(contexts)`` and ``update(arm, reward)``, the round's contexts
                      (``n_arms × dim``): a contextual policy
``step``              ``step(last_reward, last_arm) -> arm`` (``(None, None)`` at the first round)
``smpybandits``       SMPyBandits' ``startGame()``, ``choice()`` and ``getReward(arm, reward)``
``select``            LinUCB's ``select(x) -> arm`` and ``update(x, arm, reward)``, ``x`` the round's contexts
                      (``n_arms × dim``): a contextual policy
====================  =====================================================

Each takes ``one_based=True`` for code that numbers its arms from 1.  The wrapped factory keeps its signature, so
privcheck still gives it what it declares — ``n_arms``, ``horizon``, ``rng`` (or an integer ``seed``), the claim's
parameters, the usual spellings ``K``, ``T``, ``eps``, ``random_state`` — and the policy's own parameters
(``factory_args=``, on the command line ``--set NAME=VALUE``).  A factory whose runs have one of these shapes is
also recognised without an adapter (arms from 0), and the report says so; on the command line, ``--adapter NAME``
and ``--one-based``.
"""

from privcheck.core.foreign import (
    ADAPTERS,
    adapt,
    get_arm,
    get_arm_contexts,
    get_arm_t,
    select,
    shape_of,
    smpybandits,
    step,
)

__all__ = ["get_arm", "get_arm_t", "get_arm_contexts", "step", "smpybandits", "select", "adapt", "shape_of", "ADAPTERS"]
