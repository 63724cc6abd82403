#!/bin/bash
set -e
cd /app
jq '.debug = false | .workers = 4' /app/config.json > /tmp/c && cat /tmp/c > /app/config.json
