#!/bin/bash
set -e
cd /app
grep -c ERROR /app/server.log > /app/answer.txt
