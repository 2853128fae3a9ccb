#!/bin/bash
# A variant of the snarkpipe binary for device A/B runs, without a second build tree: one
# CUDA translation unit recompiled with extra definitions and linked against build-cuda's
# other objects. Usage, in the repository root, after `ninja -C build-cuda snarkpipe`:
#   bash bench/cuda/build_variant.sh NAME UNIT [NVCC FLAGS...]
#   e.g. bash bench/cuda/build_variant.sh g1c1b3 msm_g1 -DSNARKPIPE_FP_MUL_CALLED=1 -DSNARKPIPE_G1_GATHER_BLOCKS=3
# → build-cuda/ab/snarkpipe-NAME.xz (stripped, compressed; bench/cuda/ab_device.sh unpacks and
# runs it on the device). The knobs meant for this are in src/cuda/tuning.hpp:
# SNARKPIPE_FP_MUL_CALLED, SNARKPIPE_MSM_SEGMENT, SNARKPIPE_G1_GATHER_BLOCKS.
set -euo pipefail
name=$1 unit=$2
shift 2
root=$PWD
work=build-cuda/variants/$name
rm -rf "$work" && mkdir -p "$work" build-cuda/ab
# The unit's compile command as CMake wrote it, with the object redirected and the flags added.
cmd=$(ninja -C build-cuda -t commands snarkpipe | grep -- "-c $root/src/cuda/$unit.cu " | head -1)
[ -n "$cmd" ] || { echo "no compile command for src/cuda/$unit.cu in build-cuda" >&2; exit 1; }
obj="src/cuda/CMakeFiles/snarkpipe_cuda.dir/$unit.cu.o"
cmd=${cmd//-o $obj/-o $root/$work/$unit.cu.o}
cmd=${cmd//-MF $obj.d/-MF $root/$work/$unit.cu.o.d}
(cd build-cuda && eval "$cmd $* -Xptxas -v") 2> "$work/ptxas.txt"
cp build-cuda/src/cuda/libsnarkpipe_cuda.a "$work/"
ar r "$work/libsnarkpipe_cuda.a" "$work/$unit.cu.o"
link=$(ninja -C build-cuda -t commands snarkpipe | grep -- "-o snarkpipe ")
link=${link//src\/cuda\/libsnarkpipe_cuda.a/$root/$work/libsnarkpipe_cuda.a}
link=${link//-o snarkpipe /-o $root/$work/snarkpipe }
(cd build-cuda && eval "$link")
strip -o "build-cuda/ab/snarkpipe-$name" "$work/snarkpipe"
xz -T0 -6 -f "build-cuda/ab/snarkpipe-$name"
echo "build-cuda/ab/snarkpipe-$name.xz ($(grep -c 'Compiling entry' "$work/ptxas.txt") kernels; ptxas report in $work/ptxas.txt)"
