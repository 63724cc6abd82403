def total(n):
    s = 0
    for i in range(n):
        s += i
    return s
