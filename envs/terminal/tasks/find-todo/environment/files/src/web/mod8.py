def f8():
    pass
    return 8
