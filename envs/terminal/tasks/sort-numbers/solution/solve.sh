#!/bin/bash
set -e
cd /app
sort -rn /app/numbers.txt > /app/sorted.txt
