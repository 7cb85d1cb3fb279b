"""A user's bandit policy, in the protocol privcheck runs and audits (batched over independent runs).

    privcheck regret --env bernoulli --means 0.9,0.5 --horizon 2000 --runs 20 --policies kl-ucb,examples/mypolicy.py:make
    privcheck audit examples/mypolicy.py:make --epsilon 1 --definition table --horizon 4 --arms 2 --samples 20000

The state is data (arrays over runs); every random choice comes from the uniforms ``u`` the caller draws, so a
run is reproducible from its seed.  This one is ε-greedy — and not private: its audit refutes the claim.
"""

import numpy as np


class EpsilonGreedy:
    n_uniforms = 2  # one to decide whether to explore, one to pick the arm if so

    def __init__(self, n_arms: int, explore: float = 0.1):
        self.n_arms, self.explore = n_arms, explore

    def init(self, runs: int):
        return {"pulls": np.zeros((runs, self.n_arms)), "sums": np.zeros((runs, self.n_arms))}

    def act(self, state, t: int, u: np.ndarray) -> np.ndarray:
        means = state["sums"] / np.maximum(state["pulls"], 1)
        greedy = np.argmax(np.where(state["pulls"] == 0, np.inf, means), axis=1)
        random_arm = np.minimum((u[:, 1] * self.n_arms).astype(np.int64), self.n_arms - 1)
        return np.where(u[:, 0] < self.explore, random_arm, greedy)

    def update(self, state, t: int, arms: np.ndarray, feedback: np.ndarray, u=None):
        rows = np.arange(arms.shape[0])
        state["pulls"][rows, arms] += 1
        state["sums"][rows, arms] += feedback
        return state


def make(n_arms: int = 2):
    return EpsilonGreedy(n_arms)
