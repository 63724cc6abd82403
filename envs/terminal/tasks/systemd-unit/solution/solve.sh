#!/bin/bash
set -e
cd /app
printf '[Unit]\nDescription=My app\n\n[Service]\nExecStart=/usr/bin/python3 /app/server.py\nUser=app\nRestart=on-failure\n\n[Install]\nWantedBy=multi-user.target\n' > /app/myapp.service
