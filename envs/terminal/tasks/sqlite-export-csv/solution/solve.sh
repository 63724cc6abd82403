#!/bin/bash
set -e
cd /app
sqlite3 -header -csv /app/hr.db "SELECT id, name, salary FROM employees WHERE dept = 'eng' ORDER BY id" > /app/eng.csv
