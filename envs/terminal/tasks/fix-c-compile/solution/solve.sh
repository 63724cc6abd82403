#!/bin/bash
set -e
cd /app
cd /app/wc && sed -i 's/^#include <stdio.h>$/#include <stdio.h>\n#include <string.h>/' count.c && sed -i 's/strlen(argv\[1\]))$/strlen(argv[1]));/' count.c && cc -o count count.c
