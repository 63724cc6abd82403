from helper import greet

print(greet('ops'))
