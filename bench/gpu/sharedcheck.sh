#!/usr/bin/env bash
# Run random shared-memory programs (bench/gpu/sharedprog) linked by the
# installed nvlink and by warplink on the GPU, and compare every kernel's
# result hash (cubinrun): one line per program.
#
#   bench/gpu/sharedcheck.sh [OUTDIR]      (default: /tmp/warplink-shared)
#
# WARPLINK and SHAREDPROG name the binaries (default: go build); N is the
# number of programs (default 30), ARCH the architecture (default sm_90).
# Needs nvcc, nvlink, gcc and a GPU.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd)
out=${1:-/tmp/warplink-shared}; mkdir -p "$out"
arch=${ARCH:-sm_90}
wl=${WARPLINK:-}; sp=${SHAREDPROG:-}
if [ -z "$wl" ]; then wl=$out/warplink; (cd "$repo" && go build -o "$wl" ./cmd/warplink) || exit 1; fi
if [ -z "$sp" ]; then sp=$out/sharedprog; (cd "$repo" && go build -o "$sp" ./bench/gpu/sharedprog) || exit 1; fi
gcc -O2 -o "$out/cubinrun" "$here/cubinrun.c" -ldl || exit 1
rm -rf "$out/progs"; "$sp" -o "$out/progs" -n "${N:-30}" || exit 1
same=0; total=0
for dir in "$out"/progs/seed*/; do
  name=$(basename "$dir"); total=$((total + 1))
  ok=1
  for src in "$dir"/f*.cu; do
    nvcc -arch="$arch" -rdc=true -cubin -o "${src%.cu}.cubin" "$src" > "$dir/nvcc.log" 2>&1 || { ok=0; break; }
  done
  if [ $ok = 0 ]; then echo "$name: nvcc failed"; continue; fi
  mapfile -t cubins < <(ls "$dir"/f*.cubin)
  nvlink -arch="$arch" -o "$dir/nv.cubin" "${cubins[@]}" > "$dir/nv.log" 2>&1; nrc=$?
  "$wl" -arch="$arch" -o "$dir/wl.cubin" "${cubins[@]}" > "$dir/wl.log" 2>&1; wrc=$?
  line="$name: rc nvlink=$nrc warplink=$wrc"
  if [ $nrc = 0 ] && [ $wrc = 0 ]; then
    cmp -s "$dir/nv.cubin" "$dir/wl.cubin" && line="$line bytes=identical" || line="$line bytes=differ"
    "$out/cubinrun" "$dir/nv.cubin" 2> "$dir/a.err" | sort > "$dir/a.run"
    "$out/cubinrun" "$dir/wl.cubin" 2> /dev/null | sort > "$dir/b.run"
    if grep -q "driver init failed" "$dir/a.err"; then
      line="$line gpu=unavailable"
    elif [ -s "$dir/a.run" ] && ! grep -q FAILED "$dir/a.run" && cmp -s "$dir/a.run" "$dir/b.run"; then
      line="$line gpu=same($(wc -l < "$dir/a.run") kernels)"; same=$((same + 1))
    else
      line="$line gpu=DIFFER"
    fi
    cuobjdump -elf "$dir/wl.cubin" > /dev/null 2>&1 && nvdisasm "$dir/wl.cubin" > /dev/null 2>&1 || line="$line tools=reject"
  fi
  echo "$line"
done
echo "shared-memory programs: $same of $total ran with the same hashes"
