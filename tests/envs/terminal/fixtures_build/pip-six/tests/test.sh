#!/bin/bash
# Passes only where six (from the image) imports and its version is the one written.
if [ "$(cat /app/name.txt 2>/dev/null)" = six ] && [ -s /app/version.txt ] && \
   python3 -c "import six, sys; sys.exit(open('/app/version.txt').read().strip() != six.__version__)"; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
