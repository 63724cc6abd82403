#!/bin/bash
set -e
cd /app
sed -i 's/^def area(w, h)$/def area(w, h):/' /app/area.py
