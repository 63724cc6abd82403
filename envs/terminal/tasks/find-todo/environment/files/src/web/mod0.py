def f0():
    # TODO: handle errors
    return 0
