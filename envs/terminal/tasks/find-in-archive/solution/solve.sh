#!/bin/bash
set -e
cd /app
mkdir -p /tmp/b && tar -xf /app/bundle.tar -C /tmp/b && cd /tmp/b && grep -rl needle-7731 . | sed 's|^\./||' > /app/answer.txt
