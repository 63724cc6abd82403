#!/bin/sh
echo sync
