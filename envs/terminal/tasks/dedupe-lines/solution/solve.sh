#!/bin/bash
set -e
cd /app
awk '!seen[$0]++' /app/list.txt > /tmp/l && cat /tmp/l > /app/list.txt
