#!/usr/bin/env bash
# Decode a changed scrambled member with nvlink 12.5 and show what reaches
# libnvvm: probe.sh POS XOR [POS XOR]... XORs payload bytes of
# scrambled.fatbin (POS from the payload start), links it with -dlto
# through the logging stand-in (nvvmlog.c) and prints the offsets (from
# the IR's end) and XORs where the IR differs from plain.ir. Changes
# inside the final LZ4 literal run keep the block valid.
# NVLINK, LIBNVVM, LIBDIR as in record.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
NVLINK=${NVLINK:-/opt/cuda12/bin/nvlink}
LIBNVVM=${LIBNVVM:-/usr/lib/x86_64-linux-gnu/libnvvm.so.4}
LIBDIR=${LIBDIR:-/opt/cuda12/lib64}
w=$(mktemp -d /tmp/scrprobe.XXXXXX); trap 'rm -rf "$w"' EXIT
mkdir -p "$w/nvvm/lib64"
gcc -shared -fPIC -o "$w/nvvm/lib64/libnvvm.so" "$here/nvvmlog.c" -ldl
python3 - "$here/scrambled.fatbin" "$w/d.fatbin" "$@" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
base = 16 + struct.unpack_from('<I', b, 20)[0]
a = sys.argv[3:]
for pos, x in zip(a[::2], a[1::2]):
    b[base + int(pos, 0)] ^= int(x, 0)
open(sys.argv[2], 'wb').write(b)
PY
(cd "$w" && NVVMLOG_REAL=$LIBNVVM NVVMLOG_DIR=$w "$NVLINK" -arch=sm_80 -dlto -nvvmpath="$w/nvvm" d.fatbin -o "$w/out.cubin" -L"$LIBDIR" -lcudadevrt) || true
python3 - "$w/mod0.bin" "$here/plain.ir" <<'PY'
import sys
a, b = open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read()
print(len(a), [(i - len(b), hex(a[i] ^ b[i])) for i in range(min(len(a), len(b))) if a[i] != b[i]])
PY
