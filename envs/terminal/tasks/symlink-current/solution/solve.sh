#!/bin/bash
set -e
cd /app
ln -sfn /app/releases/v3 /app/current
