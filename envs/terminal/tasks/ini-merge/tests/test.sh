#!/bin/bash
# Verifier: runs check.sh and writes 1 to /logs/verifier/reward.txt only when it passes.
mkdir -p /logs/verifier
if bash /tests/check.sh > /logs/verifier/check-output.txt 2>&1; then reward=1; else reward=0; fi
echo "$reward" > /logs/verifier/reward.txt
