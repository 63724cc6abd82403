#!/bin/bash
set -e
cd /app
cat > /app/backup.sh <<'EOF'
#!/bin/bash
src=$1
dest=$2
mkdir -p "$dest"
for f in "$src"/*.txt; do
  cp "$f" "$dest"/
done
EOF
