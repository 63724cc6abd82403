#!/bin/bash
set -e
cd /app
find /app/photos -name '*.jpeg' | while read -r f; do mv "$f" "${f%.jpeg}.jpg"; done
