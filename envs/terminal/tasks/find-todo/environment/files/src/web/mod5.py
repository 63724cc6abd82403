def f5():
    pass
    return 5
