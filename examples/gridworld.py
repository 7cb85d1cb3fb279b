"""A researcher's own environment, written the way gymnasium's toy-text environments (FrozenLake, Taxi, CliffWalking)
are: its dynamics a table ``P[s][a]`` of (probability, next state, reward, terminated) outcomes, a start distribution
``initial_state_distrib``, and ``reset``/``step`` for training on it.

``SlipperyGrid`` is a 2 × 3 grid: the start at the top left, a pit in the top middle (reward −10), the goal at the
bottom right (reward +10), −1 for every other step; a move goes where it was meant with probability 0.8 and to either
side of it with 0.1 each (a wall keeps the walker in place); the pit and the goal end the episode and loop on
themselves with no reward.  privcheck reads the table (``--mdp FILE:NAME``: the class, made with no arguments) and
draws its users' response tapes from it — each step's next state and reward one outcome of the table, the rewards
mapped from [−10, 10] to [0, 1] (the report says so) — so a private RL agent is audited on the users of the
researcher's own environment; the states and actions are the environment's.

    privcheck audit privcheck.policies.private_ucbvi:make --epsilon 1 --definition joint --episodes 20 --horizon 4 \
        --mdp examples/gridworld.py:SlipperyGrid --samples 2000
    privcheck audit examples/private_rl.py:make_raw_count --epsilon 1 --definition joint --episodes 20 --horizon 4 \
        --mdp examples/gridworld.py:SlipperyGrid --releases visits rewards transitions
"""

import numpy as np

ROWS, COLS = 2, 3
START, PIT, GOAL = 0, 1, 5
LEFT, DOWN, RIGHT, UP = range(4)
MOVES = {LEFT: (0, -1), DOWN: (1, 0), RIGHT: (0, 1), UP: (-1, 0)}


class SlipperyGrid:
    """The grid above, as a toy-text environment: ``P``, ``initial_state_distrib``, ``reset`` and ``step``."""

    def __init__(self, slip=0.1):
        self.n_states, self.n_actions = ROWS * COLS, len(MOVES)
        self.initial_state_distrib = np.eye(self.n_states)[START]
        self.P = {s: {a: self._outcomes(s, a, slip) for a in MOVES} for s in range(self.n_states)}
        self.state = START
        self.rng = np.random.default_rng()

    def _outcomes(self, s, a, slip):
        if s in (PIT, GOAL):
            return [(1.0, s, 0.0, True)]
        sides = [(a - 1) % 4, (a + 1) % 4]
        return [(p, *self._landing(s, b)) for p, b in ((1 - 2 * slip, a), (slip, sides[0]), (slip, sides[1]))]

    @staticmethod
    def _landing(s, a):
        r, c = divmod(s, COLS)
        dr, dc = MOVES[a]
        r, c = min(max(r + dr, 0), ROWS - 1), min(max(c + dc, 0), COLS - 1)
        to = r * COLS + c
        reward = -10.0 if to == PIT else 10.0 if to == GOAL else -1.0
        return to, reward, to in (PIT, GOAL)

    def reset(self, seed=None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.state = int(self.rng.choice(self.n_states, p=self.initial_state_distrib))
        return self.state, {}

    def step(self, action):
        outcomes = self.P[self.state][action]
        p, to, reward, done = outcomes[self.rng.choice(len(outcomes), p=[o[0] for o in outcomes])]
        self.state = to
        return to, reward, done, False, {}
