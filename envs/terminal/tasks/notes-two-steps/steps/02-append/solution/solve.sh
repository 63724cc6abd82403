#!/bin/bash
set -e
cd /app
echo 'beta 62' >> /app/notes.txt
