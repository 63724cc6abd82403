#!/bin/bash
set -e
cd /app
sed -i -e '/^#/d' -e '/^$/d' /app/settings.conf
