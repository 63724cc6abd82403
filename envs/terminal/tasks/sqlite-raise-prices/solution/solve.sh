#!/bin/bash
set -e
cd /app
sqlite3 /app/store.db "UPDATE items SET price = round(price * 1.1, 2) WHERE category = 'books'"
