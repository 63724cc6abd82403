#!/bin/bash
set -e
cd /app
sqlite3 /app/shop.db 'CREATE INDEX idx_orders_customer ON orders(customer_id)'
