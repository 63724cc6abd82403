#!/bin/bash
set -e
cd /app
{ echo id,name,email; jq -r '.[] | [.id, .name, .email] | @csv' /app/users.json | tr -d '"'; } > /app/users.csv
