"""The stepped projection (privcheck.audits.mechanism.continual): one user's persistent shift in a counter released
after every round, its noise shared along the rounds by a tree's blocks — found by a black box that knows only
that the draws are releases over rounds."""

import numpy as np
import pytest

from privcheck.audits.mechanism.continual import stepped, stepped_fit
from privcheck.audits.mechanism.events import Kind, statistics_for


def tree_counter(rng, runs: int, rounds: int, width: int, user: int | None, moved: int, scale: float = 3.0):
    """``width`` binary-mechanism counters over ``rounds`` rounds (a block of Laplace noise of ``scale`` per
    element, prefix sums over its blocks), ``runs`` draws as (runs, rounds·width), row-major: the user of round
    ``user`` (0-based; None: nobody) adds one to the first ``moved`` counters."""
    blocks = rng.laplace(0.0, scale, (runs, rounds + 1, width))
    noise = np.zeros_like(blocks)
    for t in range(1, rounds + 1):  # the prefix sum of t: its block ending at t, then that of t − lowbit(t)
        noise[:, t] = blocks[:, t] + noise[:, t - (t & -t)]
    out = noise[:, 1:]
    if user is not None:
        out[:, user:, :moved] += 1.0
    return out.reshape(runs, rounds * width)


def _separation(stat, a, b) -> float:
    sa, sb = stat(a), stat(b)
    return float((sb.mean() - sa.mean()) / np.sqrt((sa.var() + sb.var()) / 2))


def test_a_users_step_under_a_trees_noise_is_found_where_no_value_and_no_mean_shows_it():
    """Each release's noise is some eight times the user's shift: the best coordinate and the mean-difference
    projection tell the sides apart by under half a standard deviation on fresh draws (0.36–0.40 on seeds 1, 4,
    5); the stepped projection, fitted on 300 draws a side, by 0.98–1.06, where the user's 20 blocks (5 a counter)
    allow 1.05 to any linear statistic (Σ (1/(3√2))² = 1.11: the Gaussian approximation) — and it weighs the rounds
    from the user's on (Σ⁻¹ of the step)."""
    rng = np.random.default_rng(1)
    R, W, user = 64, 12, 20
    fit_a, fit_b = tree_counter(rng, 300, R, W, None, 4), tree_counter(rng, 300, R, W, user, 4)
    new_a, new_b = tree_counter(rng, 2000, R, W, None, 4), tree_counter(rng, 2000, R, W, user, 4)
    st = stepped(fit_a, fit_b, R)
    assert st is not None and st.kind == Kind.PROJECTION and len(st.weights) == R * W
    assert _separation(st, new_a, new_b) > 0.8
    others = [s for s in statistics_for(fit_a, fit_b) if s.kind in (Kind.PROJECTION, Kind.COORD)]
    assert max(abs(_separation(s, new_a, new_b)) for s in others) < 0.5
    w = np.asarray(st.weights).reshape(R, W)
    assert np.abs(w[:user, :4]).sum() < np.abs(w[user:, :4]).sum()  # (the step's rounds weigh most)
    # its separation on the held-out half (what a screening ranks pairs by) is the one on fresh draws, within noise
    fit = stepped_fit(fit_a, fit_b, R)
    assert fit.statistic == st and abs(fit.separation - _separation(st, new_a, new_b)) < 0.35


def test_nothing_is_offered_where_the_sides_do_not_differ():
    rng = np.random.default_rng(2)
    offered = sum(
        stepped(tree_counter(rng, 100, 32, 6, None, 0), tree_counter(rng, 100, 32, 6, None, 0), 32) is not None
        for _ in range(20)
    )
    assert offered <= 3  # (the held-out check at two standard errors: about one in twenty would pass by chance)


def test_only_the_first_block_is_weighed_and_shapes_that_are_not_rounds_give_nothing():
    rng = np.random.default_rng(3)
    a, b = tree_counter(rng, 200, 16, 4, None, 4), tree_counter(rng, 200, 16, 4, 3, 4, scale=0.5)
    two_a, two_b = np.concatenate([a, a], axis=1), np.concatenate([b, b], axis=1)  # (releases, then a copy)
    st = stepped(two_a, two_b, 16, blocks=2)
    assert st is not None and not np.any(np.asarray(st.weights)[16 * 4 :])
    assert stepped(a, b, 15) is None  # 64 values are not 15 rounds of whole releases
    assert stepped(a, b, 1) is None and stepped(a[:3], b[:3], 16) is None
    assert stepped(np.zeros_like(a), np.zeros_like(b), 16) is None  # nothing varies


@pytest.mark.parametrize("releases, over", [(None, None), (("visits",), (4, 2))])
def test_an_episodic_agents_releases_are_read_as_rounds(releases, over):
    from privcheck.audits.episodic.runs import EpisodicMechanism
    from privcheck.core.episodic import EpisodicAgent
    from privcheck.policies.private_ucbvi import make

    agent = EpisodicAgent(make, 4, 2, 2, 2, params={"epsilon": 1.0})
    assert EpisodicMechanism(agent, releases, "pucb").released_over() == over


class _Releases:
    """Releases after each of ``rounds`` rounds of ``width`` binary-mechanism counters (Laplace blocks of scale 3,
    rounded): on input (3, 1) the first user adds one to ``moved`` counters — a step in every release, over the
    user's blocks — and on any other input nobody adds anything."""

    def __init__(self, rounds: int = 256, width: int = 48, moved: int = 4):
        self.rounds, self.width, self.moved = rounds, width, moved

    def sample(self, x, rng, size):
        user = 0 if list(x) == [3, 1] else None
        return np.round(tree_counter(rng, size, self.rounds, self.width, user, self.moved))

    def released_over(self):
        return (self.rounds, 1)


def test_the_screening_keeps_the_pair_whose_step_reaches_every_later_release():
    """A screening round's best event, chosen and scored on a hundred draws a side of 12,288 values, is mostly the
    noise of the choice: on four seeds, three pairs whose sides are the same scored 1.8–3.6 against a claimed ε of 1
    and the pair whose first user moves four counters 2.1–3.5, first on one seed.  The screening ranks a continual
    release's pairs by their stepped projection's separation on draws it was not fitted on, and by their best
    event's score there: the first user's pair 1.2–1.7, the others 0–1.2, first on four of four.  Whole audits
    (200 draws a pair in the screening's first round, seeds 1–6): the first user's pair kept on 6 of 6, on 5 of 6
    before — this seed the one lost."""
    from privcheck import PureDP, audit

    pairs = [([i, 0], [i, 1]) for i in range(4)]  # (the fourth: the first user's)
    r = audit(_Releases(), PureDP(1.0), pairs=pairs, method="sample", samples=400, screening=200, stages=0, seed=2)
    assert sorted(r.witness["pair"]) == [[3, 0], [3, 1]]


def test_a_few_values_moved_among_many_are_weighed_with_their_heights_shrunk(monkeypatch):
    """A tree of 32 rounds × 600 values whose first user moves 6: fitted on 100 draws a side, the heights of the 594
    values the user does not move, each estimated with its noise, outweigh the six unshrunk; shrunk by the cut that
    separates the held-out half best (:data:`~privcheck.audits.mechanism.continual.SHRINK_CUTS`), the projection
    separates fresh draws at least half as well again (1.10 and 1.46 against 0.44 and 0.51)."""
    import privcheck.audits.mechanism.continual as continual

    def fresh_separations():
        rng = np.random.default_rng(0)
        out = []
        for _ in range(2):
            a, b = np.round(tree_counter(rng, 200, 32, 600, None, 6)), np.round(tree_counter(rng, 200, 32, 600, 0, 6))
            new_a, new_b = (
                np.round(tree_counter(rng, 200, 32, 600, None, 6)),
                np.round(tree_counter(rng, 200, 32, 600, 0, 6)),
            )
            out.append(_separation(stepped_fit(a, b, 32, held_out_z=0.0).statistic, new_a, new_b))
        return np.array(out)

    shrunk = fresh_separations()
    monkeypatch.setattr(continual, "SHRINK_CUTS", (0.0,))
    plain = fresh_separations()
    assert shrunk.min() > 0.8 and np.all(shrunk > 1.5 * plain)


def test_a_wide_releases_candidates_are_ranked_on_draws_they_were_not_chosen_on():
    """32 rounds × 600 values, the first user moving 6, 400 selection draws a side: the mean difference of 19,200
    values, counted on the draws it was fitted on, reads their noise and outranked every other event (4.08 against a
    claim of 1; on fresh draws 190 against 164 of 400); ranked on the half it was not chosen on, the event kept
    separates fresh draws (the stepped projection's: 93 against 10)."""
    from privcheck import PureDP
    from privcheck.audits.mechanism.selection import Scoring, best_candidates, oriented_counts

    rng = np.random.default_rng(5)
    draw = lambda n, user: np.round(tree_counter(rng, n, 32, 600, user, 6))  # noqa: E731
    a, b, fresh_a, fresh_b = draw(400, None), draw(400, 0), draw(400, None), draw(400, 0)
    s = Scoring(PureDP(1.0), 1000, 0.0125, rounds=(32, 1))
    (_, ev, side, _), *_ = best_candidates(s, a, b, 1)[0]
    num, den = oriented_counts(ev, side, fresh_a, fresh_b)
    assert num > 3 * max(den, 1) and num >= 40


def test_a_continual_release_the_screening_shows_ends_the_audit_at_a_look():
    """A slow agent's audit certifies on a few hundred runs a side and screens its pairs on most of its runs: a
    continual release's look during the screening may be made at a quarter of the certification's runs however few,
    and it counts its stepped projection's threshold, not the round's best single event — one of thousands chosen
    on a hundred draws, which promised no look here.  Before, no look: the whole plan ran, on this release and on
    seeds 1–3 of one of 256 rounds × 48 with 24 moved; now seeds 1–4 of this one stop at a look in round 2."""
    from privcheck import PureDP, audit
    from privcheck.audits.mechanism.screening import Looks

    pairs = [([i, 0], [i, 1]) for i in range(4)]
    r = audit(
        _Releases(128, 24, 20), PureDP(1.0), pairs=pairs, method="sample", samples=400, screening=200, stages=0, seed=1
    )
    assert r.verdict.name == "REFUTED" and sorted(r.witness["pair"]) == [[3, 0], [3, 1]]
    assert any(n.startswith("stopped early: a look in the screening's round 2") for n in r.notes)
    assert r.witness["looks"]["at"] == [100]
    sizes = lambda n, continual=True: Looks(None, PureDP(1.0), pairs, n, 0.95, continual).sizes  # noqa: E731
    assert sizes(400) == [100] and sizes(64) == [16] and sizes(2000) == [500] and sizes(10**6) == [15625, 62500, 250000]
    assert sizes(400, False) == [] and sizes(2000, False) == [500]  # (other draws: at least 500 a side)
