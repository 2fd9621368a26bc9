#!/usr/bin/env bash
# Side-by-side bench of PTX JIT and LTO links: nvlink 11.8 against
# warplink (with warplink-nvvm beside it), on N generated objects.
#
#   bench/jitlto/run.sh [N] [RUNS]      (defaults: 200 objects, 5 runs)
#   ROWS=jit or ROWS=lto runs one of the two links only.
#
# Needs nvcc, nvlink and ptxas (CUDA 11.8) and libnvvm. Objects are
# generated once into $WARPLINK_BENCH_CACHE/jitlto2-N (default /tmp):
# N translation units (N distinct programs: no two compile the same PTX),
# each a kernel and a non-inlined device function
# that calls the previous unit's (cross-object calls; the first calls
# none, so that LTO does not inline a chain of N functions), compiled
#   PTX only:  nvcc -dc -arch=compute_80 -code=compute_80   (linked for sm_86)
#   LTO:       nvcc -dc -dlto -arch=sm_80                   (linked for sm_80)
# Each link runs RUNS times, nvlink and warplink alternating; the medians
# of wall time and of CPU time (user + system, with the child processes)
# are printed with the 1-minute load average before and after, and the
# outputs compared byte for byte. On a machine shared with other work the
# wall times measure the others too: with N CPUs and no other load, a
# parallel JIT link's wall time is at best its CPU time / N.
set -euo pipefail
N=${1:-200}; RUNS=${2:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
cache=${WARPLINK_BENCH_CACHE:-/tmp}/jitlto2-$N
bin=$cache/bin
mkdir -p "$cache/src" "$cache/ptx" "$cache/lto" "$bin"
(cd "$root" && CGO_ENABLED=0 go build -o "$bin/warplink" ./cmd/warplink && CGO_ENABLED=0 go build -o "$bin/warplink-nvvm" ./cmd/warplink-nvvm)
nvvm=$cache/nvvm; mkdir -p "$nvvm/lib64"
lib=$(ldconfig -p | awk '/libnvvm.so.4 /{print $NF; exit}')
ln -sf "${lib:-/usr/lib/x86_64-linux-gnu/libnvvm.so.4}" "$nvvm/lib64/libnvvm.so"

gen() { # gen I: one translation unit
  local i=$1 p=$(( $1 - 1 )) call=a
  [ "$1" -gt 0 ] && { echo "extern __device__ float f$p(float x, int n);"; call="(n > 1 \&\& a > 7.0f ? f$p(a, n / 2) : a)"; }
  cat <<CU | sed "s|@CALL@|$call|"
__device__ __noinline__ float f$i(float x, int n) {
  float a = x;
  for (int k = 0; k < n; k++) { a = a * 1.0001f + __sinf(a) * 0.5f - __cosf(a * $i.0f) * 0.25f; if (a > 1e6f) a = 0.0f; }
  return @CALL@;
}
__global__ void k$i(float *p, int n) {
  int t = threadIdx.x + blockIdx.x * blockDim.x;
  float v = p[t];
  #pragma unroll 4
  for (int k = 0; k < 16; k++) v += f$i(v + k, n) * p[(t + k) % 256];
  p[t] = v;
}
CU
}
if [ ! -f "$cache/done" ]; then
  echo "generating $N objects into $cache (once)"
  for i in $(seq 0 $((N - 1))); do gen "$i" >"$cache/src/u$i.cu"; done
  build() {
    nvcc -dc -arch=compute_80 -code=compute_80 -o "$cache/ptx/u$1.o" "$cache/src/u$1.cu"
    nvcc -dc -dlto -arch=sm_80 -o "$cache/lto/u$1.o" "$cache/src/u$1.cu"
  }
  export -f build; export cache
  seq 0 $((N - 1)) | xargs -P "$(nproc)" -I{} bash -c 'build {}'
  touch "$cache/done"
fi
ptxobjs=(); ltoobjs=()
for i in $(seq 0 $((N - 1))); do ptxobjs+=("$cache/ptx/u$i.o"); ltoobjs+=("$cache/lto/u$i.o"); done

# bench NAME OUT CMD...: one run; prints "wall cpu" (seconds; cpu is user
# + system time of the tool and its children: ptxas, warplink-nvvm)
bench() {
  local name=$1 out=$2; shift 2
  local tf; tf=$(mktemp)
  /usr/bin/time -f "%e %U %S" -o "$tf" "$@" -o "$out" >/dev/null 2>&1 || { echo "$name failed"; "$@" -o "$out"; rm -f "$tf"; exit 1; }
  awk '{printf "%s %.2f\n", $1, $2 + $3}' "$tf"; rm -f "$tf"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
load() { cut -d' ' -f1 /proc/loadavg; }
row() { # row LABEL ARGS...
  local label=$1; shift
  local nv=() wl=() nvc=() wlc=() l0 r
  l0=$(load)
  for r in $(seq "$RUNS"); do
    read -r w c < <(bench nvlink "$cache/nv.cubin" nvlink "$@"); nv+=("$w"); nvc+=("$c")
    read -r w c < <(WARPLINK_NVVM_HELPER=$bin/warplink-nvvm bench warplink "$cache/wl.cubin" "$bin/warplink" "$@"); wl+=("$w"); wlc+=("$c")
  done
  local mn mw cn cw
  mn=$(printf '%s\n' "${nv[@]}" | median); mw=$(printf '%s\n' "${wl[@]}" | median)
  cn=$(printf '%s\n' "${nvc[@]}" | median); cw=$(printf '%s\n' "${wlc[@]}" | median)
  local same=differ; cmp -s "$cache/nv.cubin" "$cache/wl.cubin" && same=byte-identical
  printf '%-28s wall: nvlink %6.2f s  warplink %6.2f s  %4.2fx | cpu: nvlink %6.2f s  warplink %6.2f s | load %s-%s (%s)\n' \
    "$label" "$mn" "$mw" "$(echo "$mn / $mw" | bc -l)" "$cn" "$cw" "$l0" "$(load)" "$same"
}
echo "$(nproc) CPUs; medians of $RUNS runs"
[ "${ROWS:-jit}" != jit ] && [ "${ROWS:-}" != "" ] ||
row "PTX JIT, $N objects, sm_86" -arch=sm_86 -m64 -cpu-arch=X86_64 "${ptxobjs[@]}"
[ "${ROWS:-lto}" != lto ] && [ "${ROWS:-}" != "" ] ||
row "LTO, $N objects, sm_80" -arch=sm_80 -m64 -cpu-arch=X86_64 -dlto -nvvmpath="$nvvm" "${ltoobjs[@]}"
