def f6():
    pass
    return 6
