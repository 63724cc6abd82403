def f7():
    pass
    return 7
