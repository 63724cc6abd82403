def f4():
    # TODO: handle errors
    return 4
