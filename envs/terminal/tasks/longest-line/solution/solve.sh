#!/bin/bash
set -e
cd /app
awk '{ if (length($0) > m) { m = length($0); n = NR } } END { print n }' /app/poem.txt > /app/answer.txt
