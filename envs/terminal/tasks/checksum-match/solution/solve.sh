#!/bin/bash
set -e
cd /app
cd /app/files && sha256sum * | grep d41253640cb9261abf7bd207a5360b7dce2564211ba7e9afa10429ed87fb2afd | awk '{print $2}' > /app/answer.txt
