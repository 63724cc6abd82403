#!/bin/bash
set -e
cd /app
cd /app/repo && git log --format=%ae | sort -u | wc -l > /app/answer.txt
