"""Price lookup with a calculator (``shop/price-v0``): the multi-turn tool env SmolLM2 learns."""
