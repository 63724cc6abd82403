#!/bin/bash
set -e
cd /app
cd /app && grep -rl TODO src | sort > /app/todo.txt
