#!/bin/bash
src=$1
dest=$2
mkdir -p $dest
for f in $(ls $src/*.txt); do
  cp $f $dest/
done
