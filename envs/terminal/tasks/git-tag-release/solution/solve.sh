#!/bin/bash
set -e
cd /app
cd /app/repo && git tag v2.0 "$(git log --format=%H --grep='^release two$')"
