#!/bin/bash
set -e
cd /app
grep -oE '[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[a-z]+' /app/messages.txt | sort -u > /app/emails.txt
