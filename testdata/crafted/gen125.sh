#!/bin/sh
# gen125.sh records crafted cases with a CUDA 12 toolkit (12.5, 12.4): it
# copies each case to a scratch folder, runs gen.sh there with that
# toolkit's ptxas, fatbinary and nvlink first on PATH, and keeps the
# inputs and the oracle (the cubins and fatbins, link.args, ref.cubin,
# ref.log, ref.rc) in the case's nvlink<release>/ folder (nvlink12.5/,
# nvlink12.4/), which TestCrafted links as well (the inputs' toolkit
# makes warplink link as that nvlink).
#
# Usage: WARPLINK_CUDA=/opt/cuda12/bin ./gen125.sh [case ...]
#        (no cases: the weak-function ones)
set -eu
cd "$(dirname "$0")"
: "${WARPLINK_CUDA:?set WARPLINK_CUDA to a CUDA 12 toolkit's bin folder}"
rel=$("$WARPLINK_CUDA/nvlink" --version | sed -n 's/.*release \([0-9.]*\),.*/\1/p')
[ -n "$rel" ] || { echo "gen125.sh: no release in $WARPLINK_CUDA/nvlink --version" >&2; exit 1; }
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
	rm -rf "$c/nvlink$rel"
	mkdir "$c/nvlink$rel"
	for f in "$tmp/$c"/*; do
		case $f in *.ptx) ;; *) cp "$f" "$c/nvlink$rel/" ;; esac
	done
done
