#!/bin/bash
set -e
cd /app
cat > /app/count.sh <<'EOF'
#!/bin/bash
for f in "$@"; do
  echo "$(basename "$f") $(wc -l < "$f")"
done
EOF
