#!/bin/bash
set -e
cd /app
cd /app && join <(sort names.txt) <(sort ages.txt) | sort -n > joined.txt
