#!/bin/bash
set -e
cd /app
cd /app/repo && git revert --no-edit "$(git log --format=%H --grep='^break config$')"
