#!/bin/bash
set -e
cd /app
mkdir -p /app/parts && cd /app/parts && split -l 10 -d -a 1 /app/records.txt part && for f in part?; do mv "$f" "part$(( ${f#part} + 1 )).txt"; done
