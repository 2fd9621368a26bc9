#!/bin/sh
# record-callgraph.sh records nvlink's --dump-callgraph report for every
# corpus program: the program's link.args with --dump-callgraph added, run
# in the program's directory; stdout+stderr go to ref_callgraph.log.
# Needs nvlink (the committed logs: CUDA 11.8, V11.8.89).
set -eu
cd "$(dirname "$0")"
lib=$(cd ../cudalib && pwd)
for d in cuda11.8-sm_*/*/; do
	args=$(sed "s#@CUDA_LIBDIR@#$lib#g; s#^ref.cubin\$#/dev/null#" "$d/link.args" | tr '\n' ' ')
	# shellcheck disable=SC2086
	(cd "$d" && nvlink $args --dump-callgraph >ref_callgraph.log 2>&1 || true)
done
