#!/bin/bash
set -e
cd /app
chmod 700 /app/secrets && chmod 600 /app/secrets/*
