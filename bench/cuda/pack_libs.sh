#!/bin/bash
# Copies the shared libraries BINARY needs that a bare device image lacks (every one ldd
# resolves, less glibc's and the compiler runtime's) into DIR, for the device tool's carry.
#   bash bench/cuda/pack_libs.sh DIR BINARY...
set -eu
dir=$1; shift
mkdir -p "$dir"
for bin in "$@"; do
  ldd "$bin" | awk '$3 ~ /^\// {print $1, $3}' | while read -r name path; do
    case "$name" in
      libc.so.*|libm.so.*|libgcc_s.so.*|libstdc++.so.*|libresolv.so.*|libpthread.so.*|libdl.so.*|librt.so.*|libcuda.so.*) ;;
      *) cp -L "$path" "$dir/$name" ;;
    esac
  done
done
