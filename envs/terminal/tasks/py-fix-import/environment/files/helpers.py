def greet(who):
    return f'hello, {who}!'
