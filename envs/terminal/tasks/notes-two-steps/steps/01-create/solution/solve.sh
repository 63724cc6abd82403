#!/bin/bash
set -e
cd /app
echo 'alpha 31' > /app/notes.txt
