def f3():
    pass
    return 3
