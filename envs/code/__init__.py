"""Code family: write a Python function, run code and tests in a sandbox, scored on hidden tests."""
