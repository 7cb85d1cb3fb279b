"""A policy written one object per run, as source text for tests that write it to a file (the command line's and
the pytest fixture's): it plays arm 0 for five rounds, then commits to arm 1 when the noisy sum of its rewards is
below 2.5; ``make`` is calibrated (Laplace(1/ε) on a sum of sensitivity 1), ``make_small_noise`` has 1/20 of the
noise."""

COMMIT = """
class Commit:
    def __init__(self, rng, epsilon, scale):
        self.rng, self.b, self.total, self.choice = rng, scale / epsilon, 0.0, 0

    def act(self, t):
        if t == 6:
            self.choice = int(self.total + self.rng.laplace(0.0, self.b) < 2.5)
        return 0 if t <= 5 else self.choice

    def update(self, t, arm, reward):
        self.total += reward if t <= 5 else 0.0


def make(rng, epsilon):
    return Commit(rng, epsilon, 1.0)


def make_small_noise(rng, epsilon):
    return Commit(rng, epsilon, 0.05)
"""


class ShortCommit:
    """The same shape as an object (tests that need no file): arm 0 for two rounds, then commit to arm 1 when the
    noisy sum of the rewards (Laplace(scale/ε)) is below 1."""

    def __init__(self, rng, epsilon, scale=1.0):
        self.rng, self.b, self.total, self.choice = rng, scale / epsilon, 0.0, 0

    def act(self, t):
        if t == 3:
            self.choice = int(self.total + self.rng.laplace(0.0, self.b) < 1.0)
        return 0 if t <= 2 else self.choice

    def update(self, t, arm, reward):
        self.total += reward
