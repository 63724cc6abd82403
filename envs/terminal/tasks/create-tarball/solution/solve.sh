#!/bin/bash
set -e
cd /app
cd /app && tar -czf docs.tar.gz docs
