#!/bin/bash
f=$1
echo "$(basename "$f") $(wc -l < "$f")"
