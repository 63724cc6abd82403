#!/bin/bash
set -e
cd /app
cd /app/data && for d in */; do echo "$(cat "$d"* | wc -c) ${d%/}"; done | sort -rn | head -1 | awk '{print $2}' > /app/answer.txt
