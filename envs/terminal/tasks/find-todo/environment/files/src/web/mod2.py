def f2():
    pass
    return 2
