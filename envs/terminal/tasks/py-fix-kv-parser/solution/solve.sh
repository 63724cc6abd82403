#!/bin/bash
set -e
cd /app
cat > /app/kv.py <<'EOF'
def parse(text):
    out = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        key, _, value = line.partition('=')
        out[key.strip()] = value.strip()
    return out
EOF
