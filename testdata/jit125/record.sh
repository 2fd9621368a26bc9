#!/usr/bin/env bash
# Build PTX JIT and LTO inputs with CUDA 12.5's nvcc and record what
# nvlink 12.5 does with them (internal/e2e TestJITLTO125 replays it), in
# the format of ../jit/record.sh: cases.txt (name, exit status, sha256 of
# the output, '-' for none, several comma-separated or '*' for one that
# varies from run to run (see rec), the tab-separated arguments; @LIBDIR@ the folder of
# libcudadevrt.a, @NVVM@ an -nvvmpath laid out as <p>/lib64/libnvvm.so,
# @OUT@ the output) and logs.txt ("== name" headers).
#
#   record.sh [OUTDIR]     (default: the folder of this script)
#
# NVCC and NVLINK are 12.5's (default: the /opt/cuda12 wrappers, which run
# them in a chroot that sees /work and /tmp); LIBNVVM is its libnvvm.so as
# that nvlink sees it; LIBDIR holds 12.5's libcudadevrt.a.
#
# The -dlto objects are built with -Xfatbin=-compress=false (the IR stored
# as it is) but for the <tu>.z80.o / <tu>.z90.o of the ltoz group, built
# with nvcc's default (a compressed, scrambled NVVM member:
# fatbin.FlagScrambled); xcall/a.z80.o is also linked beside plain ones in
# the err group.
#
# From each program of ../corpus/src/programs, per translation unit:
#   <tu>.ptx.o   nvcc -dc, PTX for compute_80 only
#   <tu>.lto80.o / <tu>.lto90.o  nvcc -dc -dlto -arch=sm_80 / sm_90 (not -G units)
#   <tu>.z80.o / <tu>.z90.o  the same with nvcc's default compression
#   <first tu>.sm80.o  nvcc -dc -arch=sm_80, for mixed links
# and xcall's units as PTX files (nvcc -ptx -rdc=true).
# Units marked 'archive' go into libjit.a / liblto80.a / liblto90.a /
# libz80.a / libz90.a.
# Inputs already there are kept (REBUILD=1 builds them again: nvcc's
# objects differ from build to build, and the records with them).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$here}
progs=$here/../corpus/src/programs
NVCC=${NVCC:-/opt/cuda12/bin/nvcc}
NVLINK=${NVLINK:-/opt/cuda12/bin/nvlink}
LIBNVVM=${LIBNVVM:-/usr/lib/x86_64-linux-gnu/libnvvm.so.4}
LIBDIR=${LIBDIR:-$(cd "$here/../cudalib12" && pwd)}
NVVM=$(mktemp -d /tmp/jit125nvvm.XXXXXX); mkdir -p "$NVVM/lib64"
ln -s "$LIBNVVM" "$NVVM/lib64/libnvvm.so"
trap 'rm -rf "$NVVM"' EXIT
cases=$OUT/cases.txt; logs=$OUT/logs.txt
# ONLY=GROUP re-records that group alone, replacing its records.
if [ -n "${ONLY:-}" ]; then
  awk -F'\t' -v g="$ONLY" '{split($1,a,"/"); split(a[2],b,"."); if (b[1]!=g) print}' "$cases" >"$cases.tmp" && mv "$cases.tmp" "$cases"
  awk -v g="$ONLY" '/^== /{split($2,a,"/"); split(a[2],b,"."); keep=(b[1]!=g)} keep' "$logs" >"$logs.tmp" && mv "$logs.tmp" "$logs"
else
  : >"$cases"; : >"$logs"
fi
nc=(-Xfatbin=-compress=false)

# rec GROUP NAME PROGDIR ARGS... : run nvlink, append the record.
rec() {
  [ -n "${ONLY:-}" ] && [ "$1" != "$ONLY" ] && return 0
  local name=$1.$2 dir=$3; shift 3
  local args=() a
  for a in "$@"; do a=${a//@LIBDIR@/$LIBDIR}; a=${a//@NVVM@/$NVVM}; args+=("${a//@OUT@/$OUT/.out.cubin}"); done
  rm -f "$OUT/.out.cubin"
  (cd "$dir" && "$NVLINK" "${args[@]}") >"$OUT/.log" 2>&1; local rc=$?
  local sum=-; [ -f "$OUT/.out.cubin" ] && sum=$(sha256sum <"$OUT/.out.cubin" | cut -d' ' -f1)
  # libnvvm 12.5 orders some globals differently from run to run (with
  # -opt=0), and its extended split compile cuts some programs one way or
  # another: a link whose output changes in two more runs is run ten times
  # in all, and recorded with its outputs' sums (comma-separated) when
  # they are at most three, each seen twice or more, else with '*' (the
  # test then compares exit status and messages).
  local i all=$sum
  if [ -n "${VARIES:-}" ] && [ "$sum" != - ]; then sum='*'; fi
  for i in 1 2; do
    [ "$sum" = '*' ] && break
    [ "$sum" = - ] && break
    rm -f "$OUT/.out.cubin"; (cd "$dir" && "$NVLINK" "${args[@]}") >/dev/null 2>&1
    all+=" $(sha256sum <"$OUT/.out.cubin" | cut -d' ' -f1)"
  done
  if [ "$sum" != - ] && [ "$sum" != '*' ] && [ "$(tr ' ' '\n' <<<"$all" | sort -u | wc -l)" -gt 1 ]; then
    for i in 1 2 3 4 5 6 7; do
      rm -f "$OUT/.out.cubin"; (cd "$dir" && "$NVLINK" "${args[@]}") >/dev/null 2>&1
      all+=" $(sha256sum <"$OUT/.out.cubin" | cut -d' ' -f1)"
    done
    local counts; counts=$(tr ' ' '\n' <<<"$all" | sort | uniq -c)
    if [ "$(wc -l <<<"$counts")" -le 3 ] && ! awk '$1<2{exit 1}' <<<"$counts"; then
      sum=$(awk '{print $2}' <<<"$counts" | paste -sd,)
    else
      sum='*'
    fi
  fi
  printf '%s\t%s\t%s\t%s\n' "$(basename "$dir")/$name" "$rc" "$sum" "$(printf '%s\t' "$@" | sed 's/\t$//')" >>"$cases"
  if [ -s "$OUT/.log" ]; then echo "== $(basename "$dir")/$name" >>"$logs"; sed "s#$NVVM#@NVVM@#g; s#$OUT/.out.cubin#@OUT@#g" "$OUT/.log" >>"$logs"; fi
  rm -f "$OUT/.out.cubin" "$OUT/.log"
}

base=(-m64 -cpu-arch=X86_64)
for prog in "$progs"/*/; do
  name=$(basename "$prog"); dst=$OUT/$name; flags=$prog/flags
  mkdir -p "$dst"
  linkflags=(); [ -f "$flags" ] && read -r -a linkflags <<<"$(awk '$1=="link"{$1="";print}' "$flags")"
  ptxo=(); l80=(); l90=(); aptx=(); a80=(); a90=(); z80=(); z90=(); az80=(); az90=(); first=; lto=1
  for cu in "$prog"/*.cu; do
    tu=$(basename "$cu" .cu); extra=(); isar=0
    if [ -f "$flags" ]; then
      read -r -a extra <<<"$(awk -v t="$tu.cu" '$1==t && $2!="archive"{$1="";print}' "$flags")"
      grep -q "^$tu.cu archive" "$flags" && isar=1
    fi
    [[ " ${extra[*]} " == *" -G "* ]] && lto=0
    if [ ! -f "$dst/$tu.ptx.o" ] || [ -n "${REBUILD:-}" ]; then
      (cd "$prog" && "$NVCC" -dc -arch=compute_80 -code=compute_80 "${extra[@]}" -o "$dst/$tu.ptx.o" "$tu.cu") || exit 1
      if [ $lto = 1 ]; then
        (cd "$prog" && "$NVCC" -dc -dlto -arch=sm_80 "${nc[@]}" "${extra[@]}" -o "$dst/$tu.lto80.o" "$tu.cu") || exit 1
        (cd "$prog" && "$NVCC" -dc -dlto -arch=sm_90 "${nc[@]}" "${extra[@]}" -o "$dst/$tu.lto90.o" "$tu.cu") || exit 1
      fi
      if [ -z "$first" ] && [ $isar = 0 ]; then
        (cd "$prog" && "$NVCC" -dc -arch=sm_80 "${extra[@]}" -o "$dst/$tu.sm80.o" "$tu.cu") || exit 1
      fi
    fi
    # nvcc's default: the NVVM member compressed and scrambled.
    for t in 80 90; do
      [ $lto = 1 ] && { [ ! -f "$dst/$tu.z$t.o" ] || [ -n "${REBUILD:-}" ]; } || continue
      (cd "$prog" && "$NVCC" -dc -dlto -arch=sm_$t "${extra[@]}" -o "$dst/$tu.z$t.o" "$tu.cu") || exit 1
    done
    if [ $isar = 1 ]; then aptx+=("$tu.ptx.o"); a80+=("$tu.lto80.o"); a90+=("$tu.lto90.o"); az80+=("$tu.z80.o"); az90+=("$tu.z90.o")
    else ptxo+=("$tu.ptx.o"); l80+=("$tu.lto80.o"); l90+=("$tu.lto90.o"); z80+=("$tu.z80.o"); z90+=("$tu.z90.o"); [ -n "$first" ] || first=$tu; fi
  done
  if [ ${#aptx[@]} -gt 0 ]; then
    (cd "$dst" && rm -f libjit.a liblto80.a liblto90.a && ar rcs libjit.a "${aptx[@]}") || exit 1
    ptxo+=(libjit.a)
    if [ $lto = 1 ]; then
      (cd "$dst" && ar rcs liblto80.a "${a80[@]}" && ar rcs liblto90.a "${a90[@]}") || exit 1
      l80+=(liblto80.a); l90+=(liblto90.a)
      (cd "$dst" && rm -f libz80.a libz90.a && ar rcs libz80.a "${az80[@]}" && ar rcs libz90.a "${az90[@]}") || exit 1
      z80+=(libz80.a); z90+=(libz90.a)
    fi
  fi
  for t in 86 90; do rec jit sm_$t "$dst" -arch=sm_$t "${base[@]}" "${ptxo[@]}" -L@LIBDIR@ "${linkflags[@]}" -o @OUT@; done
  [ $lto = 1 ] || continue
  rec lto sm_80 "$dst" -arch=sm_80 "${base[@]}" "${l80[@]}" -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ -o @OUT@
  rec lto sm_90 "$dst" -arch=sm_90 "${base[@]}" "${l90[@]}" -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ -o @OUT@
  rec ltoz sm_80 "$dst" -arch=sm_80 "${base[@]}" "${z80[@]}" -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ -o @OUT@
  rec ltoz sm_90 "$dst" -arch=sm_90 "${base[@]}" "${z90[@]}" -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ -o @OUT@
  rec ltonodevrt sm_80 "$dst" -arch=sm_80 "${base[@]}" "${l80[@]}" -L@LIBDIR@ "${linkflags[@]}" -dlto -nvvmpath=@NVVM@ -o @OUT@
  rec ltomixed sm_80 "$dst" -arch=sm_80 "${base[@]}" "$first.sm80.o" "${l80[@]:1}" -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ -o @OUT@
  rec ltosplit xnvvm "$dst" -arch=sm_80 "${base[@]}" "${l80[@]}" -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ -Xnvvm -opt=0 -o @OUT@
  rec ltosplit ext2 "$dst" -arch=sm_90 "${base[@]}" "${l90[@]}" -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ -split-compile-extended 2 -o @OUT@
  case $name in xcall|recursion|globals)
    for v in "-Xnvvm -ftz=1" "-Xnvvm=-opt=0,-fma=0" "-Xnvvm -opt=0,-g -g" "-Xnvvm -g,-g" "-Xnvvm -opt=0 -Xnvvm -opt=3" \
      "-Xnvvm -foo" "-Xnvvm -maxreg=32 -maxrregcount=32" "-split-compile 2" "-split-compile-extended 2" \
      "-split-compile 2 -split-compile-extended 3" "-maxrregcount=32" "-Xptxas -O1" "-g" "-force-partial-lto" \
      "-emit-ptx" "-ignore-host-info" "-force-whole-lto -split-compile 4"; do
      read -r -a va <<<"$v"
      rec ltovar "$(echo "$v" | tr -d ' =,')" "$dst" -arch=sm_80 "${base[@]}" "${l80[@]}" -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ "${va[@]}" -o @OUT@
    done
    rec ltovar mixed-split-xnvvm "$dst" -arch=sm_80 "${base[@]}" "$first.sm80.o" "${l80[@]:1}" -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ -split-compile 2 -split-compile-extended 2 -Xnvvm -opt=0 -o @OUT@
    for v in -maxrregcount=32 -g "-Xptxas -O1"; do
      read -r -a va <<<"$v"
      rec jitvar "$(echo "$v" | tr -d ' =')" "$dst" -arch=sm_86 "${base[@]}" "${ptxo[@]}" "${va[@]}" -o @OUT@
    done
  esac
  echo "$name: done"
done

# Host code that references kernels and variables (../jit/hostref/*.cu):
# nvlink 12.5 hands the references to libnvvm as -host-ref-* options.
hr=$OUT/hostref; mkdir -p "$hr"
for tu in h g s; do
  [ -f "$hr/$tu.sm80.o" ] && [ -z "${REBUILD:-}" ] && continue
  (cd "$here/../jit/hostref" && "$NVCC" -dc -dlto -arch=sm_80 "${nc[@]}" -o "$hr/$tu.lto80.o" $tu.cu &&
    "$NVCC" -dc -arch=sm_80 -o "$hr/$tu.sm80.o" $tu.cu) >/dev/null 2>&1 || exit 1
done
b80=(-arch=sm_80 -m64 -cpu-arch=X86_64)
rec hostref lto "$hr" "${b80[@]}" h.lto80.o g.lto80.o s.lto80.o -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ -o @OUT@
rec hostref xnvvm "$hr" "${b80[@]}" h.lto80.o g.lto80.o s.lto80.o -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ -Xnvvm -opt=0 -split-compile 2 -o @OUT@
rec hostref kernels "$hr" "${b80[@]}" h.lto80.o g.lto80.o s.lto80.o -L@LIBDIR@ -lcudadevrt -kernels-used=_Z2k1Pi -variables-used=gv -dlto -nvvmpath=@NVVM@ -o @OUT@
rec hostref gonly "$hr" "${b80[@]}" g.lto80.o s.lto80.o -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ -o @OUT@
rec hostref mixed "$hr" "${b80[@]}" h.lto80.o g.sm80.o s.lto80.o -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ -o @OUT@
# --register-link-binaries (its file recorded as the case's log
# "name.file"): libcudadevrt is listed only where the link pulls it in.
# recreg GROUP NAME PROGDIR ARGS...
recreg() {
  [ -n "${ONLY:-}" ] && [ "$1" != "$ONLY" ] && return 0
  local dir=$3
  rm -f "$dir/.reg"
  rec "$@" --register-link-binaries=.reg
  { echo "== $(basename "$dir")/$1.$2.file"; cat "$dir/.reg"; } >>"$logs"; rm -f "$dir/.reg"
}
recreg hostref reg-lto "$hr" "${b80[@]}" h.lto80.o g.lto80.o s.lto80.o -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ -o @OUT@
recreg hostref reg-mixed "$hr" "${b80[@]}" h.lto80.o g.sm80.o s.lto80.o -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ -o @OUT@
recreg hostref reg-split "$hr" "${b80[@]}" h.lto80.o g.lto80.o s.lto80.o -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ -split-compile-extended 2 -o @OUT@
recreg hostref reg-cdp-mixed "$OUT/cdp" "${b80[@]}" a.sm80.o b.lto80.o -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ -o @OUT@

# A unit of many functions, which libnvvm's extended split compile cuts
# into several PTX modules (nvlink compiles each with ptxas -c and links
# them). libnvvm cuts it one way or another from run to run, so those
# links are recorded with the sum '*' (VARIES): exit status and messages.
# (-g and plain -split-compile make one module.)
sp=$OUT/split
[ -f "$sp/split.lto90.o" ] && [ -z "${REBUILD:-}" ] ||
  (cd "$sp" && "$NVCC" -dc -dlto -arch=sm_80 "${nc[@]}" -o split.lto80.o split.cu &&
    "$NVCC" -dc -dlto -arch=sm_90 "${nc[@]}" -o split.lto90.o split.cu) || exit 1
for v in "-split-compile-extended 4" "-split-compile-extended 4 -maxrregcount=32" "-split-compile-extended 4 -Xptxas -O2" \
  "-split-compile-extended 4 -g" "-split-compile 4" "-split-compile-extended 2 -Xnvvm -opt=3"; do
  read -r -a va <<<"$v"
  varies=1; [[ $v == *-g || $v == "-split-compile 4" ]] && varies=
  VARIES=$varies rec split "$(echo "$v" | tr -d ' =')" "$sp" "${base[@]}" -arch=sm_80 split.lto80.o -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ "${va[@]}" -o @OUT@
done
VARIES=1 rec split sm_90 "$sp" "${base[@]}" -arch=sm_90 split.lto90.o -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ -split-compile-extended 4 -o @OUT@
VARIES=1 rec split nodevrt "$sp" "${base[@]}" -arch=sm_80 split.lto80.o -dlto -nvvmpath=@NVVM@ -split-compile-extended 4 -o @OUT@
VARIES=1 rec split partial "$sp" "${base[@]}" -arch=sm_80 split.lto80.o -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ -split-compile-extended 4 -force-partial-lto -o @OUT@

# -use_fast_math objects: their -ftz etc. reach libnvvm only with -Xnvvm;
# beside objects without it, nvlink refuses the link.
x=$OUT/xcall
for tu in a b c; do
  [ -f "$x/$tu.fast80.o" ] && [ -z "${REBUILD:-}" ] && continue
  (cd "$progs/xcall" && "$NVCC" -dc -dlto -arch=sm_80 -use_fast_math "${nc[@]}" -o "$x/$tu.fast80.o" $tu.cu) || exit 1
done
[ -f "$x/a.z80.o" ] && [ -z "${REBUILD:-}" ] || (cd "$progs/xcall" && "$NVCC" -dc -dlto -arch=sm_80 -o "$x/a.z80.o" a.cu) || exit 1
# PTX text files on the command line.
for tu in a b c; do
  [ -f "$x/$tu.ptx" ] && [ -z "${REBUILD:-}" ] && continue
  (cd "$progs/xcall" && "$NVCC" -ptx -rdc=true -arch=compute_80 -o "$x/$tu.ptx" $tu.cu) || exit 1
done
for t in 80 90; do rec ptxfile sm_$t "$x" -arch=sm_$t a.ptx b.ptx c.ptx -o @OUT@; done
rec fast lto "$x" "${base[@]}" -arch=sm_80 a.fast80.o b.fast80.o c.fast80.o -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ -o @OUT@
rec fast xnvvm "$x" "${base[@]}" -arch=sm_80 a.fast80.o b.fast80.o c.fast80.o -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ -Xnvvm -opt=3 -o @OUT@
rec fast xnvvm-prec "$x" "${base[@]}" -arch=sm_80 a.fast80.o b.fast80.o c.fast80.o -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ -Xnvvm -prec-div=1 -o @OUT@
rec fast mismatch "$x" "${base[@]}" -arch=sm_80 a.fast80.o b.lto80.o c.lto80.o -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ -o @OUT@
# A compressed (scrambled) NVVM member beside plain ones: linked without
# -dlto its PTX is compiled; with -dlto its IR is decoded.
rec err scrambled-nodlto "$x" "${base[@]}" -arch=sm_80 a.z80.o b.lto80.o c.lto80.o -L@LIBDIR@ -lcudadevrt -o @OUT@
rec err scrambled "$x" "${base[@]}" -arch=sm_80 a.z80.o b.lto80.o c.lto80.o -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ -o @OUT@
# -Xptxas informational options: the built-in ptxas prints its text and
# exits, ending nvlink there (status 0, no output, later inputs unread).
rec info ptxas-version "$x" -arch=sm_90 -Xptxas --version a.ptx.o b.ptx.o -o @OUT@
rec info ptxas-help "$x" -arch=sm_86 -Xptxas --help a.ptx -o @OUT@
rec info ptxas-version-later "$x" -arch=sm_90 -Xptxas -V a.sm80.o b.ptx.o missing.o -o @OUT@
rec info ptxas-version-lto "$x" -arch=sm_80 -Xptxas --version a.lto80.o b.lto80.o c.lto80.o -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ -o @OUT@
# Virtual targets: the inputs read and compiled as for sm_<n>, no output.
rec virtual ptx "$x" -arch=compute_86 a.ptx.o b.ptx.o c.ptx.o -o @OUT@
rec virtual ptxv "$x" -arch=compute_80 -Xptxas -v a.ptx.o -o @OUT@
rec virtual mixed "$x" -arch=compute_90 a.sm80.o b.ptx.o c.ptx.o -o @OUT@
rec virtual lto "$x" -arch=compute_80 -Xptxas -v a.lto80.o b.lto80.o c.lto80.o -L@LIBDIR@ -lcudadevrt -dlto -nvvmpath=@NVVM@ -o @OUT@
