import csv, sys

rows = list(csv.DictReader(open(sys.argv[1])))
rows.sort(key=lambda r: r['age'])
print(rows[-1]['name'])
