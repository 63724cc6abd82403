"""One-digit addition (``arith/add-v0``): a tiny single-turn env for learning demos and tests."""
