#!/bin/bash
set -e
cd /app
tr 'A-Z' 'a-z' < /app/text.txt | tr -s ' ' '\n' | grep -v '^$' | sort | uniq -c | sort -k1,1nr -k2 | head -5 | awk '{print $1, $2}' > /app/top5.txt
