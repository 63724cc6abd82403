#!/bin/bash
set -e
cd /app
printf '[server]\nhost = 127.0.0.1\nport = 8099\ntoken = %s\n' "$(cat /app/token.txt)" > /app/server.ini && python3 /app/server.py
