#!/bin/bash
set -e
cd /app
sqlite3 /app/shop.db "SELECT count(*) FROM orders WHERE status='shipped'" > /app/answer.txt
