#!/bin/bash
set -e
cd /app
awk -F, 'NR==1 || $2=="west"' /app/orders.csv > /app/west.csv
