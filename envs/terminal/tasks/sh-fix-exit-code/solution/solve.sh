#!/bin/bash
set -e
cd /app
sed -i 's/^  echo missing$/  echo missing; exit 1/' /app/check.sh
