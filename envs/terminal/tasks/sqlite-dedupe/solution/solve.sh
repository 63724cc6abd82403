#!/bin/bash
set -e
cd /app
sqlite3 /app/crm.db 'DELETE FROM contacts WHERE id NOT IN (SELECT min(id) FROM contacts GROUP BY email)'
