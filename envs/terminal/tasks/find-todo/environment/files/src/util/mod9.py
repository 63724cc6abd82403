def f9():
    pass
    return 9
