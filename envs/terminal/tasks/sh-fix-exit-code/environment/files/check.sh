#!/bin/bash
if [ -s "$1" ]; then
  echo ok
else
  echo missing
fi
exit 0
