"""A jointly differentially private linear bandit, written one object per run as papers' code writes it, and
three planted bugs of the kind such code has.

Each round a user arrives with the arms' contexts (an ``n_arms × dim`` array, each row of norm at most L) and is
recommended an arm.  The policy explores for ``m`` users (arms in turn), then releases once the ridge statistics of
what it saw — the Gram matrix ``V = Σ x xᵀ`` and ``b = Σ x r`` — with Laplace noise, and recommends to every later
user the arm of largest upper confidence ``x · θ + β ‖x‖_A``, θ = A b and A = (V + I)⁻¹ of the noisy statistics.  One user's data (their contexts and rewards) reach
the other users' recommendations only through the noisy release: joint ε-DP ("Differentially Private Contextual
Linear Bandits", Shariff and Sheffet, §2), with ε split between V and b.  Sensitivities (one user's x, r replaced,
‖x‖₂ ≤ L, r ∈ [0, 1]): ``b`` moves by at most ‖x‖₁ + ‖x'‖₁ ≤ 2√d·L in L1; the upper triangle of ``V`` by at most
‖x‖₁² + ‖x'‖₁² ≤ 2d·L².

    privcheck audit examples/linear.py:make --epsilon 1 --definition joint --arms 2 --dim 2 --horizon 12 --samples 5000
    privcheck audit examples/linear.py:make_raw_gram --epsilon 1 --definition joint --arms 2 --dim 2 --horizon 12 --samples 5000
    privcheck audit examples/linear.py:make_unit_bound --epsilon 1 --definition joint --arms 2 --dim 2 --horizon 12 --context-bound 4 --samples 5000
    privcheck audit examples/linear.py:make_shared_noise --epsilon 1 --definition joint --arms 2 --dim 2 --horizon 12 --samples 5000
    privcheck audit examples/linear.py:make_local --epsilon 1 --definition local --arms 2 --dim 2 --horizon 12 --samples 5000
    privcheck audit examples/linear.py:make_local_raw_context --epsilon 1 --definition local --arms 2 --dim 2 --horizon 12 --samples 5000

``make_per_arm`` keeps one model per arm (a user's data reach only the model of the arm they were shown), each
released with its own noise.  The planted bugs: ``make_raw_gram`` adds noise to ``b`` only and releases the raw
Gram matrix (a user's context moves V, and with it every later user's confidence widths); ``make_unit_bound`` calibrates its noise for L = 1 whatever bound it is
told (refuted when the contexts may be longer); ``make_shared_noise`` keeps one model per arm and adds one noise
vector to every arm's ``b`` — the arms' comparison then cancels it.  ``make_local`` is locally private (each user's
report privatized before it leaves them, audited under ``--definition local`` through the run's ``report``);
``make_local_raw_context`` privatizes the reward but sends the raw context.
"""

import numpy as np

from privcheck.mechanisms.exact_sampling import discrete_laplace


class NoisyRidgeCommit:
    """Explore ``m`` users (arms in turn); then, once, θ and A from the noisy (V, b); then the arm of largest
    x · θ + β ‖x‖_A."""

    def __init__(self, n_arms, dim, horizon, rng, epsilon, context_bound=1.0, bug=None, per_arm=False):
        self.k, self.d, self.rng, self.bug = n_arms, dim, rng, bug
        self.per_arm = per_arm = per_arm or bug == "shared_noise"  # one model per arm
        self.m = max(n_arms, horizon // 3)  # users explored
        L = 1.0 if bug == "unit_bound" else context_bound  # the bug: calibrated for L = 1 whatever the bound
        self.b_scale = 2 * np.sqrt(dim) * L / (epsilon if bug == "raw_gram" else epsilon / 2)  # (V "needs none")
        self.v_scale = 2 * dim * L**2 / (epsilon / 2)
        self.V = np.zeros((n_arms, dim, dim)) if per_arm else np.zeros((dim, dim))
        self.b = np.zeros((n_arms, dim)) if per_arm else np.zeros(dim)
        self.theta, self.beta = None, 1.0  # optimism: x · θ + β ‖x‖ in the noisy (V + I)⁻¹

    def act(self, t, contexts):
        if t <= self.m:
            self.x = contexts[(t - 1) % self.k]
            return (t - 1) % self.k
        if self.theta is None:
            self.theta, self.A = self._release()
        if self.per_arm:
            mean = np.einsum("kd,kd->k", contexts, self.theta)
            width = np.einsum("kd,kde,ke->k", contexts, self.A, contexts)
        else:
            mean = contexts @ self.theta
            width = np.einsum("kd,de,ke->k", contexts, self.A, contexts)
        return int(np.argmax(mean + self.beta * np.sqrt(np.maximum(width, 0.0))))

    def update(self, t, arm, reward):
        if t <= self.m:
            if self.per_arm:
                self.V[arm] += np.outer(self.x, self.x)
                self.b[arm] += self.x * reward
            else:
                self.V += np.outer(self.x, self.x)
                self.b += self.x * reward

    def _noise(self):
        """A draw of the noise of (V, b): a symmetric Laplace matrix and a Laplace vector."""
        upper = np.triu(self.rng.laplace(0.0, self.v_scale, (self.d, self.d)))
        W = upper + np.triu(upper, 1).T
        if self.bug == "raw_gram":  # the bug: the Gram matrix "is not a reward", released as it is
            W = np.zeros_like(W)
        return W, self.rng.laplace(0.0, self.b_scale, self.d)

    def _release(self):
        """θ and (V + I)⁻¹ of the noisy statistics (for each arm's model, when there is one per arm)."""
        if not self.per_arm:
            return self._ridge(*self._noisy(self.V, self.b, self._noise()))
        if self.bug == "shared_noise":  # the bug: one draw of the noise for every arm's model
            shared = self._noise()
            draws = [shared] * self.k
        else:
            draws = [self._noise() for _ in range(self.k)]
        fits = [self._ridge(*self._noisy(V, b, n)) for V, b, n in zip(self.V, self.b, draws)]
        return np.stack([f[0] for f in fits]), np.stack([f[1] for f in fits])

    @staticmethod
    def _noisy(V, b, noise):
        W, z = noise
        return V + W, b + z

    def _ridge(self, V, b):
        A = np.linalg.pinv(V + np.eye(self.d))
        return A @ b, A


def make(n_arms, dim, horizon, rng, epsilon, context_bound):
    return NoisyRidgeCommit(n_arms, dim, horizon, rng, epsilon, context_bound)


def make_per_arm(n_arms, dim, horizon, rng, epsilon, context_bound):
    return NoisyRidgeCommit(n_arms, dim, horizon, rng, epsilon, context_bound, per_arm=True)


def make_raw_gram(n_arms, dim, horizon, rng, epsilon, context_bound):
    return NoisyRidgeCommit(n_arms, dim, horizon, rng, epsilon, context_bound, bug="raw_gram")


def make_unit_bound(n_arms, dim, horizon, rng, epsilon, context_bound):
    return NoisyRidgeCommit(n_arms, dim, horizon, rng, epsilon, context_bound, bug="unit_bound")


def make_shared_noise(n_arms, dim, horizon, rng, epsilon, context_bound):
    return NoisyRidgeCommit(n_arms, dim, horizon, rng, epsilon, context_bound, bug="shared_noise")


class LocalRidgeUCB(NoisyRidgeCommit):
    """Locally private: every explored user sends ``report(contexts, reward)`` — the context of the arm they were
    shown and their reward, each on a grid of step g = 2⁻¹⁰ with exact discrete Laplace noise over ε/2 (rounded to
    the grid, neighbours' contexts are at most 2√d·L/g + d steps apart in L1, their rewards 1/g + 1: the float-safe
    release of privcheck's how-to) — and the policy learns from the reports alone; a report is ε-LDP.  With
    ``raw_context`` (the bug) the reward is noised with all of ε and the context sent as it is ("the features are
    not the private part")."""

    GRID = 2.0**-10

    def __init__(self, n_arms, dim, horizon, rng, epsilon, context_bound=1.0, raw_context=False):
        super().__init__(n_arms, dim, horizon, rng, epsilon, context_bound)
        self.raw, self.arm = raw_context, 0
        g = self.GRID
        self.x_steps = int(np.ceil((2 * np.sqrt(dim) * context_bound / g + dim) / (epsilon / 2)))
        self.r_steps = int(np.ceil((1 / g + 1) / (epsilon if raw_context else epsilon / 2)))

    def _on_grid(self, v, steps):
        v = np.atleast_1d(np.asarray(v, dtype=float))
        return (np.round(v / self.GRID).astype(np.int64) + discrete_laplace(self.rng, steps, v.size)) * self.GRID

    def report(self, contexts, reward):
        x = contexts[self.arm]
        x = x if self.raw else self._on_grid(x, self.x_steps)
        return np.concatenate([x, self._on_grid(reward, self.r_steps)])

    def act(self, t, contexts):
        self.contexts, self.arm = contexts, (t - 1) % self.k
        return super().act(t, contexts)

    def update(self, t, arm, reward):
        if t <= self.m:
            sent = self.report(self.contexts, reward)
            x, r = sent[:-1], sent[-1]
            self.V += np.outer(x, x)
            self.b += x * r

    def _release(self):
        return self._ridge(self.V, self.b)  # the reports are private already


def make_local(n_arms, dim, horizon, rng, epsilon, context_bound):
    return LocalRidgeUCB(n_arms, dim, horizon, rng, epsilon, context_bound)


def make_local_raw_context(n_arms, dim, horizon, rng, epsilon, context_bound):
    return LocalRidgeUCB(n_arms, dim, horizon, rng, epsilon, context_bound, raw_context=True)
