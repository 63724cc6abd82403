#!/bin/bash
set -e
cd /app
cd /app/repo && git add app.py && git commit -q -m 'fix app'
