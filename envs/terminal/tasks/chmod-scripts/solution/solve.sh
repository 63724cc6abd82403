#!/bin/bash
set -e
cd /app
find /app/bin -type f -name '*.sh' -exec chmod 755 {} + && find /app/bin -type f ! -name '*.sh' -exec chmod 644 {} +
