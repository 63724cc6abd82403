#!/bin/bash
set -e
cd /app
python3 /app/tool/gen.py > /app/output.txt
