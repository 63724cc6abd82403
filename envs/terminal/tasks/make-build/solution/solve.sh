#!/bin/bash
set -e
cd /app
make -C /app/hello
