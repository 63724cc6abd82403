#!/bin/bash
set -e
cd /app
cd /app/repo && git checkout -q main && { git merge feature >/dev/null 2>&1 || true; } && printf 'hello from main\nhello from feature\n' > greeting.txt && git add greeting.txt && git commit -q --no-edit
