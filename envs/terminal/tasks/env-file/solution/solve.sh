#!/bin/bash
set -e
cd /app
printf 'DB_HOST=db.internal\nDB_PORT=5433\nDB_NAME=%s\n' "$(cat /app/dbname.txt)" > /app/.env
