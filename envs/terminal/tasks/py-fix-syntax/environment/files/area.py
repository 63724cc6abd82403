def area(w, h)
    return w * h

print(area(7, 6))
