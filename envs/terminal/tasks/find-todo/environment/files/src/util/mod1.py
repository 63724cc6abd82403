def f1():
    pass
    return 1
