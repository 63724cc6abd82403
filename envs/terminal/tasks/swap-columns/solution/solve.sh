#!/bin/bash
set -e
cd /app
awk -F'\t' 'BEGIN{OFS="\t"} {t=$1; $1=$2; $2=t; print}' /app/data.tsv > /app/swapped.tsv
