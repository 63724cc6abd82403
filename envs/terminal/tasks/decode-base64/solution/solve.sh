#!/bin/bash
set -e
cd /app
base64 -d /app/message.b64 > /app/answer.txt
