"""Small envs shared by the core tests."""

from agentgym import AgentEnv, make_observation


class Counter(AgentEnv):
    """Counts steps; terminates after ``goal`` steps."""

    def __init__(self, goal: int = 3) -> None:
        super().__init__()
        self.goal = goal
        self.n = 0

    def _reset(self, options):
        self.n = 0
        return make_observation("start"), {}

    def _step(self, action):
        self.n += 1
        return make_observation(str(self.n)), 1.0, self.n >= self.goal, False, {}
