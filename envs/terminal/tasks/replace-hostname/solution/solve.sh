#!/bin/bash
set -e
cd /app
sed -i 's/db\.old\.internal/db.new.internal/g' /app/conf/*.conf
