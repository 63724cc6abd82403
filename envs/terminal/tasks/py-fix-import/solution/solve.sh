#!/bin/bash
set -e
cd /app
sed -i 's/^from helper import/from helpers import/' /app/main.py
