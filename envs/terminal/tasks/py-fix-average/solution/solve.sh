#!/bin/bash
set -e
cd /app
cat > /app/avg.py <<'EOF'
import sys
nums = [float(x) for x in open(sys.argv[1]).read().split('\n') if x.strip()]
print(sum(nums) / len(nums))
EOF
python3 /app/avg.py /app/nums.txt
