"""Two-player zero-sum games for self-play: tic-tac-toe (a board game) and Kuhn poker (a card
game with hidden information), as PettingZoo-style multi-agent envs with seat views."""
