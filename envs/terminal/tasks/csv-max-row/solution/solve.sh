#!/bin/bash
set -e
cd /app
tail -n +2 /app/cities.csv | sort -t, -k2,2nr | head -1 | cut -d, -f1 > /app/answer.txt
