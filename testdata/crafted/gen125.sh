#!/bin/sh
# gen125.sh records crafted cases with CUDA 12.5: it copies each case to a
# scratch folder, runs gen.sh there with CUDA 12.5's ptxas, fatbinary and
# nvlink first on PATH, and keeps the inputs and the oracle (the cubins
# and fatbins, link.args, ref.cubin, ref.log, ref.rc) in the case's
# nvlink12.5/ folder, which TestCrafted links as well (the inputs' toolkit
# makes warplink link as nvlink 12.5).
#
# Usage: WARPLINK_CUDA=/opt/cuda12/bin ./gen125.sh [case ...]
#        (no cases: the weak-function ones)
set -eu
cd "$(dirname "$0")"
: "${WARPLINK_CUDA:?set WARPLINK_CUDA to CUDA 12.5's bin folder}"
if [ $# -eq 0 ]; then
	set -- weak-vs-strong-func strong-vs-weak-func weak-vs-weak-fewer-regs \
		weak-vs-weak-fewer-regs-first weak-entry-fewer-regs weak-vs-weak-tie-first \
		weak-vs-weak-newer-ptx weak-address-taken weak-loser-cleanup weak-later-wins \
		weak-data weak-vtables weak-winner-debug-line debug-loc-weak debug-line-weak-rel
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp gen.sh "$tmp/"
for c in "$@"; do
	mkdir "$tmp/$c"
	cp "$c"/*.ptx "$tmp/$c/"
done
PATH="$WARPLINK_CUDA:$PATH" sh "$tmp/gen.sh" "$@"
for c in "$@"; do
	rm -rf "$c/nvlink12.5"
	mkdir "$c/nvlink12.5"
	for f in "$tmp/$c"/*; do
		case $f in *.ptx) ;; *) cp "$f" "$c/nvlink12.5/" ;; esac
	done
done
