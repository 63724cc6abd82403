#!/bin/bash
set -e
cd /app
awk '{print $1}' /app/access.log | sort | uniq -c | sort -rn | head -1 | awk '{print $2}' > /app/answer.txt
