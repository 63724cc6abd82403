#!/bin/bash
set -e
cd /app
sed -i 's/\r$//' /app/run.sh && chmod +x /app/run.sh
