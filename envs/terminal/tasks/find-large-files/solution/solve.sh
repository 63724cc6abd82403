#!/bin/bash
set -e
cd /app
cd /app/data && find . -type f -size +1000c | sed 's|^\./||' | sort > /app/big.txt
