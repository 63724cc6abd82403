#!/bin/bash
set -e
cd /app
cd /app/repo && git checkout HEAD~1 -- config.ini
