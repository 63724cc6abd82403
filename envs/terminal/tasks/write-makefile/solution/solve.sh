#!/bin/bash
set -e
cd /app
printf 'app: main.o sq.o\n\tcc -o app main.o sq.o\n\n%%.o: %%.c\n\tcc -c -o $@ $<\n\nclean:\n\trm -f app *.o\n' > /app/proj/Makefile && make -C /app/proj
