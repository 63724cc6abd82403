#!/bin/bash
set -e
cd /app
python3 - <<'PY'
import configparser
c = configparser.ConfigParser()
c.read(['/app/base.ini', '/app/override.ini'])
c.write(open('/app/merged.ini', 'w'))
PY
