#!/bin/bash
set -e
cd /app
sqlite3 /app/shop.db 'SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.id ORDER BY sum(o.amount) DESC LIMIT 1' > /app/answer.txt
