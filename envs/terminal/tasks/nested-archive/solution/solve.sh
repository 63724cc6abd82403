#!/bin/bash
set -e
cd /app
mkdir -p /tmp/n && tar -xzf /app/outer.tar.gz -C /tmp/n && unzip -p /tmp/n/inner.zip secret.txt > /app/answer.txt
