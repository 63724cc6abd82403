#!/bin/bash
set -e
cd /app
cd /app/logs && for f in *.log; do [ "$f" = current.log ] || gzip "$f"; done
