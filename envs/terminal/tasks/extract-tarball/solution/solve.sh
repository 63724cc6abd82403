#!/bin/bash
set -e
cd /app
mkdir -p /app/out && tar -xzf /app/data.tar.gz -C /app/out
