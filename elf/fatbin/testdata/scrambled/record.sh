#!/usr/bin/env bash
# Make this folder's files (see README.md) with CUDA 12.5:
#   record.sh [OUTDIR]   (default: this folder)
# NVCC, NVLINK, FATBINARY: 12.5's (default: the /opt/cuda12 wrappers, which
# run in a chroot that sees /tmp); LIBNVVM: its libnvvm.so as that nvlink
# sees it; LIBDIR: the folder of its libcudadevrt.a. nvcc's IR differs from build to build, so do the files.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$here}
NVCC=${NVCC:-/opt/cuda12/bin/nvcc}
NVLINK=${NVLINK:-/opt/cuda12/bin/nvlink}
FATBINARY=${FATBINARY:-/opt/cuda12/bin/fatbinary}
LIBNVVM=${LIBNVVM:-/usr/lib/x86_64-linux-gnu/libnvvm.so.4}
LIBDIR=${LIBDIR:-/opt/cuda12/lib64}
w=$(mktemp -d /tmp/scrambled.XXXXXX); trap 'rm -rf "$w"' EXIT
mkdir -p "$w/nvvm/lib64"
gcc -shared -fPIC -o "$w/nvvm/lib64/libnvvm.so" "$here/nvvmlog.c" -ldl
cat >"$w/a.cu" <<'CU'
__device__ int g(int x);
__global__ void k(int *p) { p[threadIdx.x] = g(threadIdx.x) * 3 + 7; }
__device__ int g(int x) { return x * x + 1; }
CU
# The IR as nvcc stores it uncompressed: the payload of the kind-8 member.
"$NVCC" -dc -dlto -arch=sm_80 -Xfatbin=-compress=false -o "$w/u.o" "$w/a.cu"
"$NVCC" -dc -dlto -arch=sm_80 -o "$w/c.o" "$w/a.cu"
objcopy -O binary -j __nv_relfatbin "$w/u.o" "$w/u.fatbin"
python3 - "$w/u.fatbin" "$OUT/stored.ir" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
p = 16
while p < len(b):
    kind, _, hs, size = struct.unpack_from('<HHIQ', b, p)
    if kind == 8:
        ir = b[p + hs:p + hs + size]
        open(sys.argv[2], 'wb').write(ir)
    p += hs + size
PY
# What nvlink hands libnvvm for the compressed object's member.
(cd "$w" && NVVMLOG_REAL=$LIBNVVM NVVMLOG_DIR=$w "$NVLINK" -arch=sm_80 -dlto -nvvmpath="$w/nvvm" c.o -o "$w/out.cubin" -L"$LIBDIR" -lcudadevrt)
cp "$w/mod0.bin" "$OUT/plain.ir"
# Fatbinary's members for each: scrambled (the key at 0x28) and plain.
"$FATBINARY" --create="$OUT/scrambled.fatbin" --image3=kind=nvvm,sm=80,file="$OUT/stored.ir"
"$FATBINARY" --create="$OUT/plain.fatbin" --image3=kind=nvvm,sm=80,file="$OUT/plain.ir"
