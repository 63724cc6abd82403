#!/bin/bash
set -e
cd /app
cd /app/repo && git branch release "$(git log --format=%H --grep='^version 1.0$')"
