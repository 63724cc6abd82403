#!/bin/bash
set -e
cd /app
awk '{print $1}' /app/access.log | sort -u | wc -l > /app/answer.txt
