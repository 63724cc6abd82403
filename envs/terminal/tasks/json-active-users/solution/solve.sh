#!/bin/bash
set -e
cd /app
jq -r '.[] | select(.active) | .name' /app/users.json | sort > /app/active.txt
