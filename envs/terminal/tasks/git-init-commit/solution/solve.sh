#!/bin/bash
set -e
cd /app
cd /app/project && git init -q -b main && git add -A && git commit -q -m 'initial import'
