#!/bin/bash
set -e
cd /app
cd /app && zip -qr logs.zip logs
