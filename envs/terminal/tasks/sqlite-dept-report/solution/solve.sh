#!/bin/bash
set -e
cd /app
sqlite3 -separator ' ' /app/hr.db 'SELECT dept, CAST(round(avg(salary)) AS INTEGER) FROM employees GROUP BY dept ORDER BY dept' > /app/report.txt
