#!/bin/bash
set -e
cd /app
cd /app/repo && git log --reverse --format=%H -S SECRET_TOKEN | head -1 > /app/answer.txt
