#!/bin/bash
set -e
cd /app
sed -i 's/^    /\t/' /app/calc/Makefile && make -C /app/calc
