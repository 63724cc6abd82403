#!/bin/bash
set -e
cd /app
sqlite3 /app/catalog.db 'CREATE TABLE products(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL)' && tail -n +2 /app/products.csv > /tmp/p.csv && sqlite3 /app/catalog.db '.mode csv' '.import /tmp/p.csv products'
