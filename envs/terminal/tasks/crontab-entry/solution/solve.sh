#!/bin/bash
set -e
cd /app
echo '30 2 * * * /app/backup.sh' > /app/crontab.txt
