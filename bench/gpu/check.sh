#!/usr/bin/env bash
# Check warplink against the nvlink of the installed CUDA toolkit on a GPU
# machine: the corpus rebuilt with its nvcc, both linkers on every link,
# exit statuses, bytes, NVIDIA's tools on warplink's outputs, and every
# kernel of both outputs run on the GPU (cubinrun), then generated links.
#
#   bench/gpu/check.sh [OUTDIR]      (default: /tmp/warplink-gpu)
#
# WARPLINK names the warplink binary (default: go build ./cmd/warplink,
# which needs Go; a machine without it takes a binary built elsewhere with
# CGO_ENABLED=0). BENCHRUN likewise names bench/run's binary. SIZES are
# the generated links' object counts (default 1000 10000). CORPUS names a
# corpus already built with this toolkit (testdata/corpus/cuda13.0-sm_90,
# say: its ref*.cubin are that nvlink's outputs), copied instead of
# rebuilding it with build.sh. Needs nvcc,
# nvlink, cuobjdump, nvdisasm, gcc and a GPU; prints one line per link.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd)
out=${1:-/tmp/warplink-gpu}; mkdir -p "$out"
wl=${WARPLINK:-}; br=${BENCHRUN:-}
if [ -z "$wl" ]; then wl=$out/warplink; (cd "$repo" && go build -o "$wl" ./cmd/warplink) || exit 1; fi
if [ -z "$br" ]; then br=$out/benchrun; (cd "$repo" && go build -o "$br" ./bench/run) || exit 1; fi
gcc -O2 -o "$out/cubinrun" "$here/cubinrun.c" -ldl || exit 1
corpus=$out/corpus; rm -rf "$corpus"
if [ -n "${CORPUS:-}" ]; then
  cp -r "$CORPUS" "$corpus" || exit 1
else
  bash "$repo/testdata/corpus/src/build.sh" sm_90 "$corpus" > "$out/build.log" 2>&1 || { echo "corpus build failed: $out/build.log"; exit 1; }
fi
libdir=$(dirname "$(readlink -f "$(command -v nvcc)")")/../lib64
[ -f "$libdir/libcudadevrt.a" ] || libdir=/usr/lib/x86_64-linux-gnu

# gpu A B [KERNEL...]: whether every kernel of both cubins ran and gave the same hashes.
gpu() {
  local a=$1 b=$2; shift 2
  "$out/cubinrun" "$a" "$@" 2> "$out/a.err" | sort > "$out/a.run"
  "$out/cubinrun" "$b" "$@" 2> /dev/null | sort > "$out/b.run"
  if grep -q "driver init failed" "$out/a.err"; then
    echo "gpu=unavailable"
  elif [ -s "$out/a.run" ] && ! grep -q FAILED "$out/a.run" && cmp -s "$out/a.run" "$out/b.run"; then
    echo "gpu=same($(wc -l < "$out/a.run") kernels)"
  else
    echo "gpu=DIFFER"
  fi
}
tools() {
  local r=ok
  cuobjdump -elf "$1" > /dev/null 2>&1 || r="cuobjdump-rejects"
  nvdisasm "$1" > /dev/null 2>&1 || r="$r nvdisasm-rejects"
  echo "tools=$r"
}

for dir in "$corpus"/*/; do
  name=$(basename "$dir")
  for k in "" _dc; do
    [ -f "$dir/link$k.args" ] || continue
    mapfile -t args < <(sed "s#@CUDA_LIBDIR@#$libdir#; s#^ref$k.cubin\$#wl$k.cubin#" "$dir/link$k.args")
    (cd "$dir" && "$wl" "${args[@]}" > wl$k.log 2>&1; echo $? > wl$k.rc)
    line="$name$k: rc nvlink=$(cat "$dir/ref$k.rc") warplink=$(cat "$dir/wl$k.rc")"
    if [ -f "$dir/ref$k.cubin" ] && [ -f "$dir/wl$k.cubin" ]; then
      cmp -s "$dir/ref$k.cubin" "$dir/wl$k.cubin" && line="$line bytes=identical" || line="$line bytes=differ"
      # (cdp: libcudadevrt's kernels fault when launched as k(float*, int).)
      kernels=(); [ "$name" = cdp ] && kernels=(_Z10cdp_parentPfi _Z9cdp_childPfi)
      line="$line $(gpu "$dir/ref$k.cubin" "$dir/wl$k.cubin" "${kernels[@]}")"
    fi
    [ -f "$dir/wl$k.cubin" ] && line="$line $(tools "$dir/wl$k.cubin")"
    echo "$line"
  done
done

for n in ${SIZES:-1000 10000}; do
  w=$out/gen$n; rm -rf "$w"
  "$br" -corpus "$corpus" -gen "$w" -n "$n" > /dev/null || { echo "$n objects: generation failed"; continue; }
  mapfile -t files < <(cd "$w" && ls o*.cubin)
  (cd "$w" && nvlink -arch=sm_90 -o "$out/nv$n.cubin" "${files[@]}") || { echo "$n objects: nvlink failed"; continue; }
  (cd "$w" && "$wl" -arch=sm_90 -o "$out/wl$n.cubin" "${files[@]}") || { echo "$n objects: warplink failed"; continue; }
  echo "$n objects: $(gpu "$out/nv$n.cubin" "$out/wl$n.cubin") $(tools "$out/wl$n.cubin")"
done
