def parse(text):
    out = {}
    for line in text.splitlines():
        key, value = line.split('=')
        out[key] = value
    return out
