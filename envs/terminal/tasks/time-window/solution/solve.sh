#!/bin/bash
set -e
cd /app
awk '$1 >= "10:30:00" && $1 <= "14:15:00"' /app/requests.log | wc -l > /app/answer.txt
