#!/bin/bash
set -e
cd /app
sed -i "s/key=lambda r: r\['age'\]/key=lambda r: int(r['age'])/" /app/oldest.py
