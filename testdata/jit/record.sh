#!/usr/bin/env bash
# Build the PTX JIT and LTO corpus with a real CUDA 11.8 toolkit and record
# what NVIDIA's nvlink does with it (internal/e2e TestJITLTO replays it).
#
#   record.sh [OUTDIR]     (default: the folder of this script)
#
# From each program of ../corpus/src/programs, per translation unit:
#   <tu>.ptx.o    nvcc -dc, PTX for compute_80 only
#   <tu>.ptx      nvcc -ptx -rdc=true for compute_80 (a PTX text file)
#   <tu>.lto80.o  nvcc -dc -dlto -arch=sm_80 (NVVM IR and PTX; not with -G)
#   <tu>.lto90.o  the same for sm_90
#   <tu>.sm80.o / .sm90.o  nvcc -dc (SASS), for mixed links
# Units marked 'archive' go into libjit.a / liblto80.a / liblto90.a.
# Then cases.txt, one link per line: name, nvlink's exit status, the
# sha256 of its output ('-' for none), the arguments (tab-separated;
# @LIBDIR@ stands for the folder of libcudadevrt.a, @NVVM@ for an
# -nvvmpath folder laid out as <p>/lib64/libnvvm.so, @OUT@ for the output);
# logs.txt holds what nvlink printed, per case ("== name" headers).
# Links run in the program's folder, so inputs are named as given.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$here}
progs=$here/../corpus/src/programs
LIBDIR=/usr/lib/x86_64-linux-gnu
[ -f "$LIBDIR/libcudadevrt.a" ] || LIBDIR=$(dirname "$(readlink -f "$(command -v nvcc)")")/../lib64
NVVM=$(mktemp -d); mkdir -p "$NVVM/lib64"
lib=$(ldconfig -p | awk '/libnvvm.so.4 /{print $NF; exit}')
ln -s "${lib:-/usr/lib/x86_64-linux-gnu/libnvvm.so.4}" "$NVVM/lib64/libnvvm.so"
trap 'rm -rf "$NVVM"' EXIT
cases=$OUT/cases.txt; logs=$OUT/logs.txt
# PROGRAMS limits the corpus programs (a space-separated list; "none");
# APPEND=1 adds to the records instead of starting them again.
[ -n "${APPEND:-}" ] || [ -n "${ONLY:-}" ] || { : >"$cases"; : >"$logs"; }

# rec GROUP NAME PROGDIR ARGS... : run nvlink, append the record.
rec() {
  local name=$1.$2 dir=$3; shift 3
  local args=() a
  for a in "$@"; do a=${a//@LIBDIR@/$LIBDIR}; a=${a//@NVVM@/$NVVM}; args+=("${a//@OUT@/$OUT/.out.cubin}"); done
  rm -f "$OUT/.out.cubin"
  (cd "$dir" && nvlink "${args[@]}") >"$OUT/.log" 2>&1; local rc=$?
  local sum=-; [ -f "$OUT/.out.cubin" ] && sum=$(sha256sum <"$OUT/.out.cubin" | cut -d' ' -f1)
  printf '%s\t%s\t%s\t%s\n' "$(basename "$dir")/$name" "$rc" "$sum" "$(printf '%s\t' "$@" | sed 's/\t$//')" >>"$cases"
  if [ -s "$OUT/.log" ]; then echo "== $(basename "$dir")/$name" >>"$logs"; sed "s#$NVVM#@NVVM@#g; s#$OUT/.out.cubin#@OUT@#g" "$OUT/.log" >>"$logs"; fi
  rm -f "$OUT/.out.cubin" "$OUT/.log"
}

# info_and_virtual records the groups that only link objects already
# built (xcall's): -Xptxas informational options, which end nvlink as its
# built-in ptxas exits (status 0, no output, later inputs unread), and
# virtual targets (the inputs read and compiled as for sm_<n>, no output).
# ONLY=info_and_virtual records them alone, replacing their records.
info_and_virtual() {
  local x=$OUT/xcall
  rec info ptxas-version "$x" -arch=sm_90 -Xptxas --version a.ptx.o b.ptx.o -o @OUT@
  rec info ptxas-help "$x" -arch=sm_86 -Xptxas --help a.ptx -o @OUT@
  rec info ptxas-version-later "$x" -arch=sm_90 -Xptxas -V a.sm90.o b.ptx.o missing.o -o @OUT@
  rec info ptxas-version-lto "$x" -arch=sm_80 -Xptxas --version a.lto80.o b.lto80.o c.lto80.o -dlto -nvvmpath=@NVVM@ -o @OUT@
  rec virtual ptx "$x" -arch=compute_86 a.ptx.o b.ptx.o c.ptx.o -o @OUT@
  rec virtual ptxv "$x" -arch=compute_80 -Xptxas -v a.ptx.o -o @OUT@
  rec virtual mixed "$x" -arch=compute_90 a.sm80.o b.ptx.o c.ptx.o -o @OUT@
  rec virtual lto "$x" -arch=compute_80 -Xptxas -v a.lto80.o b.lto80.o c.lto80.o -dlto -nvvmpath=@NVVM@ -o @OUT@
}
if [ "${ONLY:-}" = info_and_virtual ]; then
  for f in "$cases" "$logs"; do
    awk -F'\t' '/^== /{split($0,h," "); split(h[2],a,"/"); split(a[2],b,"."); keep=(b[1]!="info" && b[1]!="virtual")} !/^== /{if (FILENAME ~ /cases/) {split($1,a,"/"); split(a[2],b,"."); keep=(b[1]!="info" && b[1]!="virtual")}} keep' "$f" >"$f.tmp" && mv "$f.tmp" "$f"
  done
  info_and_virtual
  exit 0
fi

for prog in "$progs"/*/; do
  name=$(basename "$prog"); dst=$OUT/$name; flags=$prog/flags
  [ -z "${PROGRAMS:-}" ] || [[ " $PROGRAMS " == *" $name "* ]] || continue
  mkdir -p "$dst"
  linkflags=(); [ -f "$flags" ] && read -r -a linkflags <<<"$(awk '$1=="link"{$1="";print}' "$flags")"
  ptxo=(); ptxf=(); l80=(); l90=(); aptx=(); a80=(); a90=(); sass80=(); sass90=(); lto=1
  for cu in "$prog"/*.cu; do
    tu=$(basename "$cu" .cu); extra=(); isar=0
    if [ -f "$flags" ]; then
      read -r -a extra <<<"$(awk -v t="$tu.cu" '$1==t && $2!="archive"{$1="";print}' "$flags")"
      grep -q "^$tu.cu archive" "$flags" && isar=1
    fi
    [[ " ${extra[*]} " == *" -G "* ]] && lto=0
    if [ ! -f "$dst/$tu.done" ] || [ -n "${REBUILD:-}" ]; then
    (cd "$prog" && nvcc -dc -arch=compute_80 -code=compute_80 "${extra[@]}" -o "$dst/$tu.ptx.o" "$tu.cu") || exit 1
    (cd "$prog" && nvcc -ptx -rdc=true -arch=compute_80 "${extra[@]}" -o "$dst/$tu.ptx" "$tu.cu") || exit 1
    (cd "$prog" && nvcc -dc -arch=sm_80 "${extra[@]}" -o "$dst/$tu.sm80.o" "$tu.cu") || exit 1
    (cd "$prog" && nvcc -dc -arch=sm_90 "${extra[@]}" -o "$dst/$tu.sm90.o" "$tu.cu") || exit 1
    if [ $lto = 1 ]; then
      (cd "$prog" && nvcc -dc -dlto -arch=sm_80 "${extra[@]}" -o "$dst/$tu.lto80.o" "$tu.cu") || exit 1
      (cd "$prog" && nvcc -dc -dlto -arch=sm_90 "${extra[@]}" -o "$dst/$tu.lto90.o" "$tu.cu") || exit 1
    fi
    touch "$dst/$tu.done"
    fi
    ptxf+=("$tu.ptx")
    if [ $isar = 1 ]; then aptx+=("$tu.ptx.o"); a80+=("$tu.lto80.o"); a90+=("$tu.lto90.o")
    else ptxo+=("$tu.ptx.o"); l80+=("$tu.lto80.o"); l90+=("$tu.lto90.o"); sass80+=("$tu.sm80.o"); sass90+=("$tu.sm90.o"); fi
  done
  if [ ${#aptx[@]} -gt 0 ]; then
    (cd "$dst" && rm -f libjit.a liblto80.a liblto90.a && ar rcs libjit.a "${aptx[@]}") || exit 1
    ptxo+=(libjit.a)
    if [ $lto = 1 ]; then
      (cd "$dst" && ar rcs liblto80.a "${a80[@]}" && ar rcs liblto90.a "${a90[@]}") || exit 1
      l80+=(liblto80.a); l90+=(liblto90.a)
    fi
  fi
  base=(-m64 -cpu-arch=X86_64)
  for t in 86 89 90; do rec jit sm_$t "$dst" -arch=sm_$t "${base[@]}" "${ptxo[@]}" -L@LIBDIR@ "${linkflags[@]}" -o @OUT@; done
  for t in 80 90; do rec ptxfile sm_$t "$dst" -arch=sm_$t "${ptxf[@]}" -L@LIBDIR@ "${linkflags[@]}" -o @OUT@; done
  case $name in xcall|weakregs|recursion)
    rec jitvar maxrreg "$dst" -arch=sm_86 "${base[@]}" "${ptxo[@]}" -maxrregcount=32 -o @OUT@
    rec jitvar xptxas "$dst" -arch=sm_86 "${base[@]}" "${ptxo[@]}" -Xptxas=-O1 -o @OUT@
    rec jitvar xptxas2 "$dst" -arch=sm_86 "${base[@]}" "${ptxo[@]}" -Xptxas=-O2 -Xptxas=-O1 -o @OUT@
    rec jitvar xptxasv "$dst" -arch=sm_86 "${base[@]}" "${ptxo[@]}" "-Xptxas=-v -O3" -o @OUT@
    rec jitvar g "$dst" -arch=sm_86 "${base[@]}" "${ptxo[@]}" -g -o @OUT@
    rec jitvar gsuppress "$dst" -arch=sm_86 "${base[@]}" "${ptxo[@]}" -g -suppress-debug-info -o @OUT@
  esac
  [ $lto = 1 ] || continue
  for t in 80 90; do
    eval "objs=(\"\${l$t[@]}\")"
    rec nodlto sm_$t "$dst" -arch=sm_$t "${base[@]}" "${objs[@]}" -L@LIBDIR@ "${linkflags[@]}" -o @OUT@
    rec lto sm_$t "$dst" -arch=sm_$t "${base[@]}" "${objs[@]}" -L@LIBDIR@ "${linkflags[@]}" -dlto -nvvmpath=@NVVM@ -o @OUT@
    rec ltodevrt sm_$t "$dst" -arch=sm_$t "${base[@]}" "${objs[@]}" -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ -o @OUT@
    eval "sass=(\"\${sass$t[@]}\")"
    rec ltomixed sm_$t "$dst" -arch=sm_$t "${base[@]}" "${sass[0]}" "${objs[@]:1}" -L@LIBDIR@ "${linkflags[@]}" -dlto -nvvmpath=@NVVM@ -o @OUT@
  done
  rec ltocross sm_90 "$dst" -arch=sm_90 "${base[@]}" "${l80[@]}" -L@LIBDIR@ "${linkflags[@]}" -dlto -nvvmpath=@NVVM@ -o @OUT@
  rec ltopartial sm_80 "$dst" -arch=sm_80 "${base[@]}" "${l80[@]}" -L@LIBDIR@ "${linkflags[@]}" -dlto -force-partial-lto -nvvmpath=@NVVM@ -o @OUT@
  case $name in xcall|recursion|globals)
    for v in -maxrregcount=32 -g -Xptxas=-O1 -emit-ptx -force-whole-lto "-g -suppress-debug-info" -ignore-host-info; do
      read -r -a va <<<"$v"
      rec ltovar "$(echo "$v" | tr -d ' =')" "$dst" -arch=sm_80 "${base[@]}" "${l80[@]}" -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ "${va[@]}" -o @OUT@
    done
  esac
  echo "$name: done"
done
# Host code that references kernels and variables (hostref/*.cu): the
# host-reference file libnvvm gets, --kernels-used, --variables-used,
# --register-link-binaries (its file recorded as the case's log).
hr=$OUT/hostref
for tu in h g s; do
  (cd "$hr" && nvcc -dc -dlto -arch=sm_80 -o $tu.lto80.o $tu.cu && nvcc -dc -arch=sm_80 -o $tu.sm80.o $tu.cu &&
    nvcc -dc -arch=compute_80 -code=compute_80 -o $tu.ptx.o $tu.cu) >/dev/null 2>&1 || exit 1
done
b80=(-arch=sm_80 -m64 -cpu-arch=X86_64)
rec hostref lto "$hr" "${b80[@]}" h.lto80.o g.lto80.o s.lto80.o -dlto -nvvmpath=@NVVM@ -o @OUT@
rec hostref ltodevrt "$hr" "${b80[@]}" h.lto80.o g.lto80.o s.lto80.o -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ -o @OUT@
rec hostref gonly "$hr" "${b80[@]}" g.lto80.o s.lto80.o -dlto -nvvmpath=@NVVM@ -o @OUT@
rec hostref kernels "$hr" "${b80[@]}" h.lto80.o g.lto80.o s.lto80.o -kernels-used=_Z2k1Pi -dlto -nvvmpath=@NVVM@ -o @OUT@
rec hostref variables "$hr" "${b80[@]}" h.lto80.o g.lto80.o s.lto80.o -variables-used=g1 -dlto -nvvmpath=@NVVM@ -o @OUT@
rec hostref both "$hr" "${b80[@]}" h.lto80.o g.lto80.o s.lto80.o -kernels-used=_Z2k1Pi,_Z2k3v -variables-used=gv -dlto -nvvmpath=@NVVM@ -o @OUT@
rec hostref ignore "$hr" "${b80[@]}" h.lto80.o g.lto80.o s.lto80.o --ignore-host-info -dlto -nvvmpath=@NVVM@ -o @OUT@
rec hostref mixed "$hr" "${b80[@]}" h.lto80.o g.sm80.o s.lto80.o -dlto -nvvmpath=@NVVM@ -o @OUT@
rec hostref jit "$hr" -arch=sm_86 -m64 -cpu-arch=X86_64 h.ptx.o g.ptx.o s.ptx.o -o @OUT@
rec hostref jitkernels "$hr" -arch=sm_86 -m64 -cpu-arch=X86_64 h.ptx.o g.ptx.o s.ptx.o -kernels-used=_Z2k1Pi -o @OUT@
for v in lto ltodevrt mixed; do
  a=("${b80[@]}" h.lto80.o g.lto80.o s.lto80.o); [ $v = mixed ] && a=("${b80[@]}" h.lto80.o g.sm80.o s.lto80.o)
  [ $v = ltodevrt ] && a+=(-L@LIBDIR@ -lcudadevrt)
  rm -f "$hr/.reg"
  rec hostref reg-$v "$hr" "${a[@]}" -dlto -nvvmpath=@NVVM@ --register-link-binaries=.reg -o @OUT@
  { echo "== hostref/hostref.reg-$v.file"; cat "$hr/.reg"; } >>"$logs"; rm -f "$hr/.reg"
done

[ -n "${PROGRAMS:-}" ] && [[ " $PROGRAMS " != *" xcall "* ]] && { rm -f "$OUT"/*/*.done; exit 0; }
x=$OUT/xcall; bad=$OUT/bad; mkdir -p "$bad"
sed 's/ret;/rett;/' "$x/b.ptx" >"$bad/bad.ptx"
sed 's/\.target sm_80/.target sm_90/' "$x/b.ptx" >"$bad/t90.ptx"
cp "$x/b.ptx" "$bad/good.dat"
printf '.version 7.8\n.target sm_80\n.address_size 64\n' >"$bad/empty.ptx"
# The NVVM member of a.lto80.o with one byte of its compressed payload
# flipped (past the header's wrapper magic: a literal run near its end).
python3 - "$x/a.lto80.o" "$bad/corrupt.lto80.o" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
i = b.find(struct.pack('<I', 0xBA55ED50))
hs, size = struct.unpack_from('<HQ', b, i + 6)
p, end = i + hs, i + hs + size
while p < end:
    kind, _, mhs, padded, csize = struct.unpack_from('<HHIQI', b, p)
    if kind == 8:
        b[p + mhs + csize - 24] ^= 0x55
    p += mhs + padded
open(sys.argv[2], 'wb').write(b)
PY
rec err dlto-no-nvvmpath "$x" -arch=sm_80 a.lto80.o -dlto -o @OUT@
rec err dlto-no-ir "$x" -arch=sm_80 a.sm80.o b.sm80.o c.sm80.o -dlto -nvvmpath=@NVVM@ -o @OUT@
rec err emit-ptx-value "$x" -arch=sm_80 a.lto80.o -dlto -nvvmpath=@NVVM@ -emit-ptx x.ptx -o @OUT@
rec err emit-ptx-nodlto "$x" -arch=sm_80 a.lto80.o -emit-ptx -o @OUT@
rec err force-both "$x" -arch=sm_80 a.lto80.o -dlto -nvvmpath=@NVVM@ -force-whole-lto -force-partial-lto -o @OUT@
rec err ptx-higher "$x" -arch=sm_80 ../bad/t90.ptx -o @OUT@
rec err ptx-syntax "$x" -arch=sm_86 ../bad/bad.ptx -o @OUT@
rec err ptx-dat "$x" -arch=sm_86 ../bad/good.dat -o @OUT@
rec err ptx-nosyms "$x" -arch=sm_86 ../bad/empty.ptx -o @OUT@
rec err ptx-undefined "$x" -arch=sm_86 a.ptx -o @OUT@
python3 - "$x/a.lto80.o" "$bad/badmagic.lto80.o" <<'PY'
# The NVVM member's wrapper magic (ED 43 4E 7F, the first literals of its
# compressed payload) broken.
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
i = b.find(struct.pack('<I', 0xBA55ED50))
hs, size = struct.unpack_from('<HQ', b, i + 6)
p, end = i + hs, i + hs + size
while p < end:
    kind, _, mhs, padded, csize = struct.unpack_from('<HHIQI', b, p)
    if kind == 8:
        b[p + mhs + 2] ^= 0xFF
    p += mhs + padded
open(sys.argv[2], 'wb').write(b)
PY
rec err nvvm-badmagic "$x" -arch=sm_80 ../bad/badmagic.lto80.o b.lto80.o c.lto80.o -dlto -nvvmpath=@NVVM@ -o @OUT@
rec err nvvm-corrupt "$x" -arch=sm_80 ../bad/corrupt.lto80.o b.lto80.o c.lto80.o -dlto -nvvmpath=@NVVM@ -o @OUT@
rec err nvvm-nolib "$x" -arch=sm_80 a.lto80.o b.lto80.o c.lto80.o -dlto -nvvmpath=/nonexistent -o @OUT@
# A -lineinfo LTO object beside objects without (nvlink's info line), and
# the same unit twice (libnvvm fails to link: its log, then nvlink's words).
# Its line information names its source, which the compiles read where it
# exists: built in a folder removed at once, so that no machine has it.
tmp=$(mktemp -d); cp "$progs/xcall/a.cu" "$tmp/"
(cd "$tmp" && nvcc -dc -dlto -arch=sm_80 -lineinfo -o "$x/a.lineinfo.lto80.o" a.cu) || exit 1
rm -rf "$tmp"
rec ltovar lineinfo-some "$x" -arch=sm_80 -m64 -cpu-arch=X86_64 a.lineinfo.lto80.o b.lto80.o c.lto80.o -dlto -nvvmpath=@NVVM@ -o @OUT@
rec err nvvm-compile "$x" -arch=sm_80 a.lto80.o a.lineinfo.lto80.o b.lto80.o c.lto80.o -dlto -nvvmpath=@NVVM@ -o @OUT@
rm -f "$OUT"/*/*.done
info_and_virtual
