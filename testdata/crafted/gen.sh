#!/bin/sh
# gen.sh regenerates the crafted-case corpus: it assembles every case's
# PTX with ptxas (sm_90, relocatable unless the case says otherwise), then
# runs the real nvlink on the recorded command line and stores the oracle
# (ref.cubin, ref.log = stdout+stderr, ref.rc = exit status).
#
# Usage: ./gen.sh [case ...]     (no arguments: every case)
#
# Needs a CUDA toolkit (ptxas, nvlink, fatbinary) on PATH; the committed
# outputs were made with CUDA 11.8 (V11.8.89). Hand-written sources are
# committed; sources that are easier to generate (many-sections-xindex) are
# written here with awk.
set -eu
cd "$(dirname "$0")"
ARCH=sm_90

# asm DIR FILE.ptx [ptxas flags...]: FILE.ptx -> FILE.cubin, relocatable.
asm() {
	d=$1 f=$2
	shift 2
	(cd "$d" && ptxas -arch=$ARCH -c "$@" "$f" -o "${f%.ptx}.cubin")
}

# link DIR ARG...: writes DIR/link.args (one argument a line, exactly as
# run) and runs nvlink in DIR, recording ref.log and ref.rc.
link() {
	d=$1
	shift
	rm -f "$d/ref.cubin" "$d/ref.log" "$d/ref.rc"
	: >"$d/link.args"
	for a in "$@"; do printf '%s\n' "$a" >>"$d/link.args"; done
	set +e
	(cd "$d" && nvlink "$@" >ref.log 2>&1)
	echo $? >"$d/ref.rc"
	set -e
}

# three DIR [nvlink flags...]: main.cubin a.cubin b.cubin, in that order.
three() {
	d=$1
	shift
	for f in main a b; do asm "$d" $f.ptx; done
	link "$d" -arch=$ARCH "$@" main.cubin a.cubin b.cubin -o ref.cubin
}

case_weak_vs_strong_func() { three weak-vs-strong-func -v; }
case_strong_vs_weak_func() { three strong-vs-weak-func -v; }
case_weak_vs_weak_fewer_regs() { three weak-vs-weak-fewer-regs -v; }
case_weak_vs_weak_fewer_regs_first() { three weak-vs-weak-fewer-regs-first -v; }
case_weak_vs_weak_tie_first() { three weak-vs-weak-tie-first -v; }
case_weak_address_taken() { three weak-address-taken -v; }

# Weak entries carry their register count in the .text sh_info high byte.
case_weak_entry_fewer_regs() {
	asm weak-entry-fewer-regs a.ptx
	asm weak-entry-fewer-regs b.ptx
	link weak-entry-fewer-regs -arch=$ARCH -v a.cubin b.cubin -o ref.cubin
}

# A cubin carries no PTX version, so the only place one can live is the
# fatbinary member header (u16 minor, u16 major at member offset 24).
# b.fatbin's ELF member is patched to claim a newer version than a.fatbin's.
case_weak_vs_weak_newer_ptx() {
	d=weak-vs-weak-newer-ptx
	for f in main a b; do asm $d $f.ptx; done
	(cd $d &&
		fatbinary --create=a.fatbin -64 --image3=kind=elf,sm=90,file=a.cubin --device-c &&
		fatbinary --create=b.fatbin -64 --image3=kind=elf,sm=90,file=b.cubin --device-c &&
		printf '\011\000\011\000' | dd of=b.fatbin bs=1 seek=40 conv=notrunc 2>/dev/null)
	link $d -arch=$ARCH -v main.cubin a.fatbin b.fatbin -o ref.cubin
}

# Corpus printf's a.cubin with its .rela.text (section 9) emptied: the
# call of the undefined twice() stays only in .nv.callgraph.
case_callgraph_only_reference() {
	d=callgraph-only-reference
	mkdir -p $d
	cp ../corpus/cuda11.8-sm_90/printf/a.cubin $d/a.cubin
	printf '\000\000\000\000\000\000\000\000' | dd of=$d/a.cubin bs=1 seek=$PRINTF_RELA_SIZE conv=notrunc 2>/dev/null
	link $d -arch=$ARCH a.cubin -o ref.cubin
}
# (the sh_size field of a.cubin's section 9: e_shoff + 9 * 64 + 32)
PRINTF_RELA_SIZE=3600

# The same a.cubin with corpus printf's b.cubin, which defines twice():
# only the call-graph edge names it, and nvlink keeps it.
case_callgraph_liveness() {
	d=callgraph-liveness
	mkdir -p $d
	cp callgraph-only-reference/a.cubin $d/a.cubin
	cp ../corpus/cuda11.8-sm_90/printf/b.cubin $d/b.cubin
	link $d -arch=$ARCH a.cubin b.cubin -o ref.cubin
}

# a.ptx: kernel ka calls weak mid<3>, which calls weak leaf<3> (b.ptx: the
# same with kernel kb). edge_to_dup rewrites a.cubin's call edge ka -> mid
# (record 2 of .nv.callgraph) as a second mid -> leaf: ka's code still
# has its call relocation against mid.
edge_to_dup() {
	(cd "$1" && printf '\003\000\000\000\001\000\000\000' | dd of=a.cubin bs=1 seek=$DUP_EDGE conv=notrunc 2>/dev/null)
}
# (.nv.callgraph, section 9 of a.cubin, starts at 1744; the record at 1760
# reads (9, 3) before the patch)
DUP_EDGE=1760

# a.ptx: kernel k calls f, which uses a module-scope __shared__ array;
# the sh_size of k's .rela.text (section 11: e_shoff + 11 * 64 + 32) is
# set to 0, so the call is left only in the call graph.
case_shared_through_callgraph() {
	d=shared-through-callgraph
	asm $d a.ptx
	printf '\000\000\000\000\000\000\000\000' | dd of=$d/a.cubin bs=1 seek=3840 conv=notrunc 2>/dev/null
	link $d -arch=$ARCH a.cubin -o ref.cubin
}

# a.ptx: f (module __shared__ array, __syncthreads) and h are called
# through pointers only: kernel k through a __device__ table, k2 through a
# local pointer. No patch.
case_indirect_call_resources() {
	d=indirect-call-resources
	asm $d a.ptx
	link $d -arch=$ARCH a.cubin -o ref.cubin
}

# -lineinfo objects with two or three functions (nvcc 11.8 output): the
# .rela.debug_line entries after the first name functions with addend 0.
case_debug_line_functions() {
	asm debug-line-functions a.ptx -lineinfo
	link debug-line-functions -arch=$ARCH a.cubin -o ref.cubin
}

# The same with three functions, the addends of entries 1 and 2 of
# .rela.debug_line (section 15 at 3336) set to 0x10.
case_debug_line_addend() {
	d=debug-line-addend
	asm $d a.ptx -lineinfo
	for off in 3376 3400; do
		printf '\020\000\000\000\000\000\000\000' | dd of=$d/a.cubin bs=1 seek=$off conv=notrunc 2>/dev/null
	done
	link $d -arch=$ARCH a.cubin -o ref.cubin
}

# debug-line-functions for sm_80, whose relocation sections are REL.
case_debug_line_functions_rel() {
	d=debug-line-functions-rel
	(cd $d && ptxas -arch=sm_80 -c -lineinfo a.ptx -o a.cubin)
	link $d -arch=sm_80 a.cubin -o ref.cubin
}

# Two sm_80 -lineinfo objects sharing weak templates mid<3> and leaf<3>
# (callgraph-duplicate-edge's sources, unpatched).
case_debug_line_weak_rel() {
	d=debug-line-weak-rel
	(cd $d && for f in a b; do ptxas -arch=sm_80 -c -lineinfo $f.ptx -o $f.cubin; done)
	link $d -arch=sm_80 a.cubin b.cubin -o ref.cubin
}

# -G objects naming a __constant__ array defined in the other one, a
# __device__ array, an undefined __device__ counter and a __managed__ flag
# (nvcc 11.8 -G output; sm_80's __iAtomicAdd carries YIELD relocations).
case_debug_g64_constant() {
	d=debug-g64-constant
	asm $d a.ptx -g
	asm $d b.ptx -g
	link $d -arch=$ARCH a.cubin b.cubin -o ref.cubin
}

# -G objects: b's device function reduce() uses extern __shared__ dyn[],
# a's kernels ks1 and ks2 call it (ks2 with shared memory of its own).
case_debug_extern_shared() {
	d=debug-extern-shared
	asm $d a.ptx -g
	asm $d b.ptx -g
	link $d -arch=$ARCH a.cubin b.cubin -o ref.cubin
}

# sm_80: a kernel using cooperative groups' block sync, a shared atomic
# counter and a device function of warp shuffles (nvcc 11.8 output).
case_prototype_order() {
	d=prototype-order
	(cd $d && ptxas -arch=sm_80 -c a.ptx -o a.cubin)
	link $d -arch=sm_80 a.cubin -o ref.cubin
}

case_debug_yield_sm80() {
	d=debug-yield-sm80
	(cd $d && for f in a b; do ptxas -arch=sm_80 -c -g $f.ptx -o $f.cubin; done)
	link $d -arch=sm_80 a.cubin b.cubin -o ref.cubin
}

# ptx_link DIR [ptxas flags] -- FILE...: assembles DIR's FILE.ptx (nvcc
# 11.8 output of small programs, committed) and links FILE.cubin in order.
ptx_link() {
	d=$1
	shift
	flags=""
	while [ "$1" != "--" ]; do flags="$flags $1"; shift; done
	shift
	cubins=""
	for obj in "$@"; do asm "$d" $obj.ptx $flags; cubins="$cubins $obj.cubin"; done
	link "$d" -arch=$ARCH $cubins -o ref.cubin
}

# A kernel calling a device function that calls printf.
case_externs_from_callees() { ptx_link externs-from-callees -- a; }
# A kernel calling through a table of two function pointers of different
# prototypes, one of them calling printf.
case_externs_indirect() { ptx_link externs-indirect -- a; }
# A table holding one function pointer (to a function calling printf),
# called by kernel k2; kernel k does not call through it.
case_function_pointer_one() { ptx_link function-pointer-one -- a; }
# The only kernel calls g (defined by b, recursive) and a printf helper.
case_externs_moved() { ptx_link externs-moved -- a b; }
# The same kernel with a non-recursive g, and an unrelated kernel in c.
case_externs_kept() { ptx_link externs-kept -- a b c; }
# Virtual functions across objects: a's kernel calls through a Base*
# that b's make() builds (derived classes and their tables in b).
case_virtual_cross_object() { ptx_link virtual-cross-object -- a b; }
case_virtual_cross_object_g() { ptx_link virtual-cross-object-g -g -- a b; }
# -G objects sharing weak templates poly<3> (and a printf); a's kernel
# also calls a device function with a local array.
case_debug_loc_weak() { ptx_link debug-loc-weak -g -- a b; }
# Template classes with virtual functions instantiated in both objects:
# their virtual tables are weak data in both .nv.global.init sections.
case_weak_vtables() { ptx_link weak-vtables -- a b; }
# An extern __device__ array declared without a size in a, defined with
# 128 floats in b.
case_extern_unsized() { ptx_link extern-unsized -- a b; }
# a defines __device__ counters[8] and bump(); b's kernel, after it,
# reads counters and calls bump.
case_extern_global_defined_earlier() { ptx_link extern-global-defined-earlier -- a b; }
# A table of two pointers to __device__ data.
case_data_pointer_table() { ptx_link data-pointer-table -- a; }

case_callgraph_edge_not_relocation() {
	d=callgraph-edge-not-relocation
	asm $d a.ptx
	edge_to_dup $d
	link $d -arch=$ARCH a.cubin -o ref.cubin
}

case_callgraph_duplicate_edge() {
	d=callgraph-duplicate-edge
	asm $d a.ptx
	asm $d b.ptx
	edge_to_dup $d
	link $d -arch=$ARCH a.cubin b.cubin -o ref.cubin
}

case_weak_loser_cleanup() {
	d=weak-loser-cleanup
	asm $d main.ptx
	asm $d a.ptx -lineinfo
	asm $d b.ptx
	link $d -arch=$ARCH -v main.cubin a.cubin b.cubin -o ref.cubin
}

case_undefined_reference() {
	asm undefined-reference main.ptx
	link undefined-reference -arch=$ARCH main.cubin -o ref.cubin
}

case_multiple_undefined() {
	asm multiple-undefined a.ptx
	asm multiple-undefined b.ptx
	link multiple-undefined -arch=$ARCH a.cubin b.cubin -o ref.cubin
}

case_multiple_definition() { three multiple-definition; }

case_multiple_definition_3() {
	d=multiple-definition-3
	for f in main d1 d2 d3; do asm $d $f.ptx; done
	link $d -arch=$ARCH main.cubin d1.cubin d2.cubin d3.cubin -o ref.cubin
}

# two DIR [nvlink flags...]: a.cubin b.cubin.
two() {
	d=$1
	shift
	asm "$d" a.ptx
	asm "$d" b.ptx
	link "$d" -arch=$ARCH "$@" a.cubin b.cubin -o ref.cubin
}

case_und_upgraded_in_place() { two und-upgraded-in-place -v; }
case_barrier_propagation() { two barrier-propagation; }

case_common_largest_size() {
	d=common-largest-size
	for f in a b c; do asm $d $f.ptx; done
	link $d -arch=$ARCH -v a.cubin b.cubin c.cubin -o ref.cubin
}

case_common_vs_init() { two common-vs-init -v; }
case_common_vs_init_smaller() { two common-vs-init-smaller -v; }
case_weak_data() { two weak-data -v; }
case_global_overlap_identical() { two global-overlap-identical -v; }
case_global_overlap_nonidentical() { two global-overlap-nonidentical -v; }

case_constant_bank_overflow() {
	d=constant-bank-overflow
	asm $d 1.ptx
	asm $d 2.ptx
	link $d -arch=$ARCH 1.cubin 2.cubin -o ref.cubin
}

case_stack_recursion_warning() {
	asm stack-recursion-warning a.ptx
	link stack-recursion-warning -arch=$ARCH a.cubin -o ref.cubin
}

case_shared_per_entry() { two shared-per-entry -v; }
case_extern_shared() { two extern-shared -v; }

case_callgraph_numbering() {
	d=callgraph-numbering
	for f in a b c; do asm $d $f.ptx; done
	link $d -arch=$ARCH a.cubin b.cubin c.cubin -o ref.cubin --dump-callgraph
}

case_callgraph_undefined() {
	asm callgraph-undefined r.ptx
	link callgraph-undefined -arch=$ARCH r.cubin -o ref.cubin --dump-callgraph -v
}

case_cdp_device_memset() {
	asm cdp-device-memset m.ptx
	link cdp-device-memset -arch=$ARCH m.cubin -L../../cudalib -lcudadevrt -o ref.cubin
}

case_cdp_device_api() {
	asm cdp-device-api m.ptx
	link cdp-device-api -arch=$ARCH m.cubin -L../../cudalib -lcudadevrt -o ref.cubin
}

# --kernels-used=root: root launches tk<11> (a template kernel, weak, with
# a static __shared__ array), gk (a static array of its own section), gk0
# and tk0<3> (no shared memory). a.ptx: nvcc -arch=sm_90 -rdc=true -ptx a.cu.
case_kernels_used_weak_shared() {
	asm kernels-used-weak-shared a.ptx
	link kernels-used-weak-shared -arch=$ARCH --kernels-used=root a.cubin -L../../cudalib -lcudadevrt -o ref.cubin
}

# k1 calls cudaFree, then cudaMalloc; k2 cudaGetDevice, then cudaFree.
case_cdp_malloc_free() {
	asm cdp-malloc-free m.ptx
	link cdp-malloc-free -arch=$ARCH m.cubin -L../../cudalib -lcudadevrt -o ref.cubin
}

# a.cubin: an input the link fuzzer made (internal/e2e/testdata/fuzz/
# FuzzLink/d911dcd9f03c7de3), committed as it is: a shared variable whose
# symbol value (its alignment) is 0x800000. b.cubin: corpus managed's.
# nvlink writes an 8 MiB file; too large to store, so only its digest,
# size and section count are kept.
case_shared_align_forged() {
	d=shared-align-forged
	cp ../corpus/cuda11.8-sm_90/managed/b.cubin $d/b.cubin
	link $d -arch=$ARCH a.cubin b.cubin -o ref.cubin
	(cd $d &&
		sha256sum ref.cubin | cut -d' ' -f1 >ref.sha256 &&
		readelf -SW ref.cubin 2>/dev/null | grep -c '^  \[ *[0-9]' >ref.sections &&
		wc -c <ref.cubin | tr -d ' ' >ref.size &&
		rm -f ref.cubin)
}

# a: k0 reads late (defined by b) once, k2 reads coef and cnt (defined in
# a); b: k3 reads cnt once.
case_constant_refs() { ptx_link constant-refs -- a b; }
# k calls mid, which calls heavy (45 registers; mid 24).
case_regcount_entries_only() { ptx_link regcount-entries-only -- a; }

# k1 and k3 call red (a float array), k2 calls redd (a double array).
case_shared_common_align() { ptx_link shared-common-align -- a; }

# sm_80: k reads cflag (a char: a byte load, CONST_FIELD21_38), cvec and
# cd from constant memory.
case_constant_bank_field() {
	d=constant-bank-field
	(cd $d && ptxas -arch=sm_80 -c a.ptx -o a.cubin)
	link $d -arch=sm_80 a.cubin -o ref.cubin
}

# sm_80: ka uses only extern __shared__ memory, kb a static array too.
case_extern_shared_empty() {
	d=extern-shared-empty
	(cd $d && ptxas -arch=sm_80 -c a.ptx -o a.cubin)
	link $d -arch=sm_80 a.cubin -o ref.cubin
}

# Bound texture references tA, tB and a surface reference (k1, k2 through
# viaB, k4); k3 uses none. (A known gap: warplink refuses them.)
case_bound_references() { ptx_link bound-references -- a; }
# Nine texture references in one kernel: the order of their slots
# (a.ptx from a.cu with nvcc 11.8 -ptx).
case_bound_references_order() { ptx_link bound-references-order -- a; }
# References over two objects, one named in both, a surface among them, one
# kernel reaching two through a device function, and the largest bank in a
# kernel that uses none (a.ptx, b.ptx from a.cu, b.cu with nvcc 11.8 -ptx).
case_bound_references_objects() { ptx_link bound-references-objects -- a b; }
# A texture reference used only by a function called through a pointer
# (a.ptx from a.cu with nvcc 11.8 -ptx).
case_bound_references_indirect() { ptx_link bound-references-indirect -- a; }

# -lineinfo: weak kernel tk<4> in a (few registers: it wins) and in b.
case_weak_winner_debug_line() { ptx_link weak-winner-debug-line -lineinfo -- a b; }

# sm_80, -G: weak kernel tk<4> in a (many registers) and b (few: b's wins).
case_weak_later_wins() {
	d=weak-later-wins
	for obj in a b; do (cd $d && ptxas -arch=sm_80 -c -g $obj.ptx -o $obj.cubin); done
	link $d -arch=sm_80 a.cubin b.cubin -o ref.cubin
}

# Weak template g<N> with a static __shared__ array (weak data) in a and b.
case_weak_shared_data() { ptx_link weak-shared-data -- a b; }

# Template g<N> with three static shared arrays of one alignment: g<8>'s
# shared by k_a and k_b, g<4>'s used by k_c alone.
case_shared_own_order() { ptx_link shared-own-order -- a; }

# -G: each object has a local function __iAtomicAdd in .text.__iAtomicAdd.
case_local_code_same_name() { ptx_link local-code-same-name -g -- a b; }

case_arch_mismatch() {
	d=arch-mismatch
	(cd $d && ptxas -arch=sm_80 -c main80.ptx -o main80.cubin)
	asm $d foo.ptx
	link $d -arch=$ARCH main80.cubin foo.cubin -o ref.cubin
}

case_non_relocatable_input() {
	d=non-relocatable-input
	(cd $d && ptxas -arch=$ARCH exec.ptx -o exec.cubin)
	link $d -arch=$ARCH exec.cubin -o ref.cubin
}

case_junk_input() { link junk-input -arch=$ARCH junk.cubin -o ref.cubin; }
case_missing_input() { link missing-input -arch=$ARCH missing.cubin -o ref.cubin; }
# nvlink stops at its first fatal diagnostic: the second bad input goes
# unnamed.
case_two_bad_inputs() { link two-bad-inputs -arch=$ARCH missing.cubin junk.cubin -o ref.cubin; }

case_kernels_used() {
	asm kernels-used a.ptx
	link kernels-used -arch=$ARCH --kernels-used=kern_one a.cubin -o ref.cubin
}

case_variables_used() {
	asm variables-used a.ptx
	link variables-used -arch=$ARCH --variables-used=v_one a.cubin -o ref.cubin
}

case_unreachable_func() {
	asm unreachable-func a.ptx
	link unreachable-func -arch=$ARCH a.cubin -o ref.cubin
}

# many-sections-xindex: NK kernels per file over NF files; every kernel
# brings .text.<k>, .nv.info.<k> and .nv.constant0.<k>, so the output has
# more than 65,279 sections. Inputs and output are too big to commit: the
# inputs are stored gzipped and the output only as ref.sha256 plus the
# section count (ref.sections).
NK=11000
NF=2
case_many_sections_xindex() {
	d=many-sections-xindex
	args=""
	i=0
	while [ $i -lt $NF ]; do
		awk -v n=$NK -v off=$((i * NK)) 'BEGIN {
			print ".version 7.8\n.target sm_90\n.address_size 64\n"
			for (k = off; k < off + n; k++)
				printf ".visible .entry k%d(.param .u64 p)\n{\n\t.reg .b32 %%r<2>;\n\t.reg .b64 %%rd<2>;\n\tld.param.u64 %%rd1, [p];\n\tmov.b32 %%r1, %d;\n\tst.global.u32 [%%rd1], %%r1;\n\tret;\n}\n", k, k
		}' >$d/m$i.ptx
		asm $d m$i.ptx
		rm -f $d/m$i.ptx
		args="$args m$i.cubin"
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	link $d -arch=$ARCH $args -o ref.cubin
	(cd $d &&
		if [ -f ref.cubin ]; then
			sha256sum ref.cubin | cut -d' ' -f1 >ref.sha256
			readelf -SW ref.cubin 2>/dev/null | grep -c '^  \[ *[0-9]' >ref.sections
			wc -c <ref.cubin | tr -d ' ' >ref.size
			rm -f ref.cubin
		fi
		for f in m*.cubin; do gzip -9nf "$f"; done)
}

# Memory spaces and the managed attribute, in st_other (nvcc 11.8 -rdc -ptx
# of one-line programs): nvlink compares them on declarations too.
case_memory_space_mismatch() {
	asm memory-space-mismatch dev.ptx
	asm memory-space-mismatch excon.ptx
	link memory-space-mismatch -arch=$ARCH dev.cubin excon.cubin -o ref.cubin
}
case_managed_mismatch() {
	asm managed-mismatch dev.ptx
	asm managed-mismatch exman.ptx
	link managed-mismatch -arch=$ARCH exman.cubin dev.cubin -o ref.cubin
}
case_entry_mismatch() {
	asm entry-mismatch kern.ptx
	asm entry-mismatch exdev.ptx
	link entry-mismatch -arch=$ARCH kern.cubin exdev.cubin -o ref.cubin
}
case_undefined_data_dead_code() {
	asm undefined-data-dead-code a.ptx
	asm undefined-data-dead-code b.ptx
	link undefined-data-dead-code -arch=$ARCH a.cubin b.cubin -o ref.cubin
}
# Code of a lower SM of the same family (sm_80 for -arch=sm_86), and of
# older virtual architectures.
case_arch_compatible() {
	(cd arch-compatible && ptxas -arch=sm_86 -c a86.ptx -o a86.cubin && ptxas -arch=sm_80 -c b80.ptx -o b80.cubin)
	link arch-compatible -arch=sm_86 a86.cubin b80.cubin -o ref.cubin
}
case_virtual_arch_lowest() {
	asm virtual-arch-lowest a80.ptx
	asm virtual-arch-lowest b75.ptx
	link virtual-arch-lowest -arch=$ARCH a80.cubin b75.cubin -o ref.cubin
}
# -g (which nvcc -G -dlink passes): no dead code elimination, and symbols
# nvlink otherwise drops.
case_debug_flag_keeps_functions() {
	for f in f sa sb; do asm debug-flag-keeps-functions $f.ptx; done
	link debug-flag-keeps-functions -arch=$ARCH -g f.cubin sa.cubin sb.cubin -o ref.cubin
}
case_debug_flag_undefined() {
	asm debug-flag-undefined a.ptx
	link debug-flag-undefined -arch=$ARCH -g a.cubin -o ref.cubin
}
case_debug_flag_virtual() {
	for f in a b; do asm debug-flag-virtual $f.ptx; done
	link debug-flag-virtual -arch=$ARCH -g a.cubin b.cubin -o ref.cubin
}
case_debug_flag_placeholder() {
	for f in a b c; do asm debug-flag-placeholder $f.ptx; done
	link debug-flag-placeholder -arch=$ARCH -g --dump-callgraph a.cubin b.cubin c.cubin -o ref.cubin
}
case_debug_flag_extern_shared() {
	asm debug-flag-extern-shared kernels.ptx
	asm debug-flag-extern-shared dbg.ptx -g
	link debug-flag-extern-shared -arch=$ARCH -g kernels.cubin dbg.cubin -o ref.cubin
}
case_debug_flag_module_shared() {
	asm debug-flag-module-shared chain.ptx
	link debug-flag-module-shared -arch=$ARCH -g chain.cubin -o ref.cubin
}
case_debug_flag_weak_shared() {
	for f in wa wb; do asm debug-flag-weak-shared $f.ptx; done
	link debug-flag-weak-shared -arch=$ARCH -g wa.cubin wb.cubin -o ref.cubin
}
case_shared_common_disjoint() {
	for f in K X Y Z; do asm shared-common-disjoint $f.ptx; done
	link shared-common-disjoint -arch=$ARCH K.cubin X.cubin Y.cubin Z.cubin -o ref.cubin
}
case_preserve_relocs_module_shared() {
	for f in b c wa wb; do asm preserve-relocs-module-shared $f.ptx; done
	link preserve-relocs-module-shared -arch=$ARCH --preserve-relocs b.cubin c.cubin wa.cubin wb.cubin -o ref.cubin
}
case_segment_nobits_align() {
	for f in d e; do asm segment-nobits-align $f.ptx; done
	link segment-nobits-align -arch=$ARCH d.cubin e.cubin -o ref.cubin
}
# The writable segment's memory-only part starts at the largest alignment
# of its NOBITS sections, in the file: an 8-aligned .nv.global.init does
# not count (init-align, -sm80), a NOBITS section past the first does
# (segment-nobits-align), the first does too (first-align), and a
# 256-aligned .nv.global moves it to the next 256-byte file offset
# (absolute).
case_segment_nobits_init_align() {
	asm segment-nobits-init-align a.ptx
	link segment-nobits-init-align -arch=$ARCH a.cubin -o ref.cubin
}
case_segment_nobits_init_align_sm80() {
	d=segment-nobits-init-align-sm80
	(cd $d && ptxas -arch=sm_80 -c a.ptx -o a.cubin)
	link $d -arch=sm_80 a.cubin -o ref.cubin
}
case_segment_nobits_first_align() {
	asm segment-nobits-first-align a.ptx
	link segment-nobits-first-align -arch=$ARCH a.cubin -o ref.cubin
}
case_segment_nobits_absolute() {
	asm segment-nobits-absolute a.ptx
	link segment-nobits-absolute -arch=$ARCH a.cubin -o ref.cubin
}
# libcudadevrt by its path, with nothing before it using it, then an object.
case_devrt_before_objects() {
	for f in t s; do asm devrt-before-objects $f.ptx; done
	link devrt-before-objects -arch=$ARCH t.cubin ../../cudalib/libcudadevrt.a s.cubin -o ref.cubin
}
case_shared_common_extern() {
	asm shared-common-extern a.ptx
	link shared-common-extern -arch=$ARCH a.cubin -o ref.cubin
}
case_debug_flag_extern_shared_common() {
	asm debug-flag-extern-shared-common b.ptx
	link debug-flag-extern-shared-common -arch=$ARCH -g b.cubin -o ref.cubin
}
# --preserve-relocs warns for sm_90 only; its archive of host objects keeps
# every function, as -g does.
case_preserve_relocs_sm80() {
	for f in a b c; do (cd preserve-relocs-sm80 && ptxas -arch=sm_80 -c $f.ptx -o $f.cubin); done
	link preserve-relocs-sm80 -arch=sm_80 --preserve-relocs a.cubin b.cubin c.cubin -o ref.cubin
}
case_extern_shared_module() {
	for f in mod ext; do asm extern-shared-module $f.ptx; done
	link extern-shared-module -arch=$ARCH mod.cubin ext.cubin -o ref.cubin
}
case_managed_extern() {
	asm managed-extern exman.ptx
	asm managed-extern man.ptx
	link managed-extern -arch=$ARCH exman.cubin man.cubin -o ref.cubin
}

# --kernels-used naming one kernel: nvlink's root kernel. cdp_parent
# launches cdp_child (b.cubin), which --kernels-used leaves out.
case_kernels_used_launched() {
	for f in a b; do asm kernels-used-launched $f.ptx; done
	link kernels-used-launched -arch=$ARCH --kernels-used=cdp_parent a.cubin b.cubin -L../../cudalib -lcudadevrt -o ref.cubin
}
# e.ptx: kx calls leafx; tk stores kx's descriptor; p1, p2, p3 plain.
case_kernels_used_one() {
	asm kernels-used-one e.ptx
	link kernels-used-one -arch=$ARCH --kernels-used=p1 e.cubin -o ref.cubin
}
case_kernels_used_two() {
	asm kernels-used-two e.ptx
	link kernels-used-two -arch=$ARCH --kernels-used=p1,p2 e.cubin -o ref.cubin
}
case_kernels_used_debug() {
	asm kernels-used-debug e.ptx
	link kernels-used-debug -arch=$ARCH -g --kernels-used=p1 e.cubin -o ref.cubin
}
# d.ptx: user2 and setq store kernels' descriptors; kd, ke call leaves.
case_kernels_used_preserve_relocs() {
	asm kernels-used-preserve-relocs d.ptx
	link kernels-used-preserve-relocs -arch=$ARCH --preserve-relocs --kernels-used=user2 d.cubin -o ref.cubin
}
# One kernel kk: malloc and printf itself, rep3 printf, rep2 assert and free.
case_externs_root() {
	asm externs-root d.ptx
	link externs-root -arch=$ARCH d.cubin -o ref.cubin
}

# c.ptx: kernel kc's descriptor in a __device__ table (address-taken with
# an empty prototype) and kernel user.
case_empty_prototype() {
	asm empty-prototype c.ptx
	link empty-prototype -arch=$ARCH c.cubin -o ref.cubin
}
# u.ptx: kernel k calls malloc and g (g.ptx), then c.ptx as above (nvlink
# 11.8 crashes with c.cubin first).
case_empty_prototype_undefined() {
	for f in u c g; do asm empty-prototype-undefined $f.ptx; done
	link empty-prototype-undefined -arch=$ARCH u.cubin c.cubin g.cubin -o ref.cubin
}

# hostobj DIR FILE.cu [nvcc flags]: FILE.cu -> FILE.o, a host object with
# relocatable device code (nvcc -dc; needs the host compiler).
hostobj() {
	d=$1 f=$2
	shift 2
	(cd "$d" && nvcc -arch=$ARCH -dc "$@" "$f" -o "${f%.cu}.o")
}
# Host reference information (.nvHRKE/.nvHRKI of nvcc -dc objects): a.cu
# launches used_k, not unused_k; b.cu launches bk.
case_host_info() {
	for f in a b; do hostobj host-info $f.cu; done
	link host-info -arch=$ARCH a.o b.o -o ref.cubin
}
# Patterns: "_Z2tk*" (template tk, both instantiations), internal kernels
# (static, anonymous namespace) and a kernel launched by cudaLaunchKernel;
# d.cu's my_Z2tk holds "_Z2tk" but not at the start.
case_host_info_patterns() {
	for f in c d; do hostobj host-info-patterns $f.cu; done
	link host-info-patterns -arch=$ARCH c.o d.o -o ref.cubin
}
# A plain cubin beside the host object: the information is not used.
case_host_info_incomplete() {
	hostobj host-info-incomplete a.cu
	(cd host-info-incomplete && nvcc -arch=$ARCH -rdc=true -cubin plain.cu -o plain.cubin)
	link host-info-incomplete -arch=$ARCH a.o plain.cubin -o ref.cubin
}
# No host code launches a kernel (f.cu copies to a variable only).
case_host_info_none() {
	for f in e f; do hostobj host-info-none $f.cu; done
	link host-info-none -arch=$ARCH e.o f.o -o ref.cubin
}
# --kernels-used with __constant__ data: TEMP_MERGED_CONSTANTS is named.
case_merged_constants_name() {
	asm merged-constants-name h.ptx
	link merged-constants-name -arch=$ARCH --kernels-used=hk h.cubin -o ref.cubin
}
# cudaMemcpyAsync from device code with __constant__ data in two objects.
case_devrt_const0_size() {
	for f in m m2; do asm devrt-const0-size $f.ptx; done
	link devrt-const0-size -arch=$ARCH m.cubin m2.cubin -L../../cudalib -lcudadevrt -o ref.cubin
}

# sm_80: kernel zc calls zg, which calls zf (b.ptx), which reads
# blockIdx.z; zd calls zh, which does not.
case_ctaidz_propagation() {
	for f in a b; do (cd ctaidz-propagation && ptxas -arch=sm_80 -c $f.ptx -o $f.cubin); done
	link ctaidz-propagation -arch=sm_80 a.cubin b.cubin -o ref.cubin
}
# The sweep's const-shared (kd uses extern __shared__ memory), kd left out.
case_extern_shared_unused() {
	for f in a b; do asm extern-shared-unused $f.ptx; done
	link extern-shared-unused -arch=$ARCH --kernels-used=_Z2kcPfi a.cubin b.cubin -o ref.cubin
}
# The sweep's legacy-texref, every kernel left out.
case_bound_references_unused() {
	for f in a b; do asm bound-references-unused $f.ptx; done
	link bound-references-unused -arch=$ARCH --kernels-used=nomatch a.cubin b.cubin -o ref.cubin
}
# __constant__ variables: x2 two, x1 one (16 bytes) and two extern, s2 one
# of 8 bytes, j three.
case_merged_constants_null_symbol() {
	for f in x2 x1 s2 j; do asm merged-constants-null-symbol $f.ptx; done
	link merged-constants-null-symbol -arch=$ARCH --kernels-used=nomatch x2.cubin x1.cubin j.cubin s2.cubin -o ref.cubin
}
# host-info's a.cu beside a host object without host information (g++).
case_host_info_host_object() {
	hostobj host-info-host-object a.cu
	(cd host-info-host-object && g++ -c ho.cpp -o ho.o)
	link host-info-host-object -arch=$ARCH a.o ho.o -o ref.cubin
}
# Kernels F and G share fg's float array; H uses fh's alone, I fi's double.
case_shared_module_align() {
	asm shared-module-align a.ptx
	link shared-module-align -arch=$ARCH a.cubin -o ref.cubin
}
# a.ptx: kernel k_a calls weak g<16> and g<8> (each a float array and an
# int of static shared memory); d.ptx: kernel k_d calls g<24>.
case_shared_own_ties() {
	for f in a d; do asm shared-own-ties $f.ptx; done
	link shared-own-ties -arch=$ARCH --kernels-used=_Z3k_aPfi a.cubin d.cubin -o ref.cubin
}
# The sweep's fp-table (f, with a __shared__ array, in a table of
# function pointers), every kernel left out.
case_shared_unplaced() {
	asm shared-unplaced a.ptx
	link shared-unplaced -arch=$ARCH --kernels-used=nomatch a.cubin -o ref.cubin
}
# The sweep's dyn-shared (reduce, in b.ptx, uses extern __shared__ memory;
# kernels ks1 and ks2 call it) under --preserve-relocs.
case_preserve_relocs_extern_shared() {
	for f in a b; do asm preserve-relocs-extern-shared $f.ptx; done
	link preserve-relocs-extern-shared -arch=$ARCH --preserve-relocs a.cubin b.cubin -o ref.cubin
}
# The sweep's legacy-texref under --preserve-relocs.
case_preserve_relocs_bound_references() {
	for f in a b; do asm preserve-relocs-bound-references $f.ptx; done
	link preserve-relocs-bound-references -arch=$ARCH --preserve-relocs a.cubin b.cubin -o ref.cubin
}
# The sweep's weak-kernels for sm_80 (tk<2> in both objects) under
# --preserve-relocs.
case_preserve_relocs_weak_param() {
	for f in a b; do (cd preserve-relocs-weak-param && ptxas -arch=sm_80 -c $f.ptx -o $f.cubin); done
	link preserve-relocs-weak-param -arch=sm_80 --preserve-relocs a.cubin b.cubin -o ref.cubin
}
# The sweep's coop-warp for sm_80 with -G (kernel kw's code has a .rela
# section of kept relocations, then a .rel one with applied ones).
case_preserve_relocs_resolved_order() {
	d=preserve-relocs-resolved-order
	(cd $d && ptxas -arch=sm_80 -c -g a.ptx -o a.cubin)
	link $d -arch=sm_80 --preserve-relocs a.cubin -o ref.cubin
}
# -G objects: d.ptx defines only data (gdata), k.ptx a kernel reading it.
case_debug_data_only() {
	d=debug-data-only
	(cd $d && for f in d k; do ptxas -arch=$ARCH -c -g $f.ptx -o $f.cubin; done)
	link $d -arch=$ARCH d.cubin k.cubin -o ref.cubin
}
# The sweep's aligned-data, -G, every kernel left out (debug information
# naming their own shared variables).
case_debug_removed_shared() {
	d=debug-removed-shared
	(cd $d && for f in a b; do ptxas -arch=$ARCH -c -g $f.ptx -o $f.cubin; done)
	link $d -arch=$ARCH --kernels-used=nomatch a.cubin b.cubin -o ref.cubin
}
# The sweep's legacy-texref, -G, every kernel left out.
case_debug_bound_references_unused() {
	d=debug-bound-references-unused
	(cd $d && for f in a b; do ptxas -arch=$ARCH -c -g $f.ptx -o $f.cubin; done)
	link $d -arch=$ARCH --kernels-used=nomatch a.cubin b.cubin -o ref.cubin
}
# h.ptx: fx (x[16], y) for kA and kB, a larger z[32] of fz for kC and
# kD: y goes past z, not only past x.
case_shared_common_past_all() {
	asm shared-common-past-all h.ptx
	link shared-common-past-all -arch=$ARCH h.cubin -o ref.cubin
}
# The sweep's weak-shared-three with c's g<40>: k_c left out, its g<40>
# shared variables unused; g<16>'s cnt goes past them.
case_shared_common_unused() {
	for f in a b c; do asm shared-common-unused $f.ptx; done
	link shared-common-unused -arch=$ARCH --kernels-used=_Z3k_aPfi,_Z3k_bPfi a.cubin b.cubin c.cubin -o ref.cubin
}
# A fuzzed shared-memory program (two groups of kernels sharing module shared variables; CASE.md).
case_shared_layers() {
	for f in f0 f1; do asm shared-layers $f.ptx; done
	link shared-layers -arch=$ARCH f0.cubin f1.cubin -o ref.cubin
}
# A fuzzed shared-memory program (shared variables of different alignments; CASE.md).
case_shared_common_size_order() {
	for f in f0; do asm shared-common-size-order $f.ptx; done
	link shared-common-size-order -arch=$ARCH f0.cubin -o ref.cubin
}
# A fuzzed shared-memory program (a kernel's own variables of one size and alignment; CASE.md).
case_shared_own_walk() {
	for f in f0 f1 f2; do asm shared-own-walk $f.ptx; done
	link shared-own-walk -arch=$ARCH f0.cubin f1.cubin f2.cubin -o ref.cubin
}
# A fuzzed shared-memory program (kernel sections that ptxas aligns to 8; CASE.md).
case_shared_align_from_vars() {
	for f in f0; do asm shared-align-from-vars $f.ptx; done
	link shared-align-from-vars -arch=$ARCH f0.cubin -o ref.cubin
}
# A fuzzed shared-memory program (an aligned variable joining the first layer; CASE.md).
case_shared_layer_join() {
	for f in f0; do asm shared-layer-join $f.ptx; done
	link shared-layer-join -arch=$ARCH f0.cubin -o ref.cubin
}
# A fuzzed shared-memory program linked with only k0 used: the removed
# k4's .nv.shared.<k> name comes after the names of f1.cubin's global data.
case_shared_removed_name() {
	for f in f0 f1 f2; do asm shared-removed-name $f.ptx; done
	link shared-removed-name -arch=$ARCH --kernels-used=_Z2k0Pfi f0.cubin f1.cubin f2.cubin -o ref.cubin
}
# A fuzzed shared-memory program whose f1 also writes extern __shared__
# memory: the extern array is in the list nvlink merge-sorts.
case_shared_extern_ties() {
	for f in f0 f1 f2; do asm shared-extern-ties $f.ptx; done
	link shared-extern-ties -arch=$ARCH f0.cubin f1.cubin f2.cubin -o ref.cubin
}
# A fuzzed shared-memory program (make fuzz-shared, seed 7): no kernel
# calls f4, whose shared arrays --preserve-relocs keeps.
case_preserve_relocs_shared_unused() {
	asm preserve-relocs-shared-unused f0.ptx
	link preserve-relocs-shared-unused -arch=$ARCH --preserve-relocs f0.cubin -o ref.cubin
}
# A fuzzed shared-memory program (seed 209): f0 and f1 write extern
# __shared__ memory, run by overlapping sets of kernels.
case_shared_extern_overlap() {
	for f in f0 f1 f2; do asm shared-extern-overlap $f.ptx; done
	link shared-extern-overlap -arch=$ARCH f0.cubin f1.cubin f2.cubin -o ref.cubin
}
# shared-extern-ties' program under --preserve-relocs: its extern
# __shared__ array keeps a symbol.
case_preserve_relocs_extern_kept() {
	for f in f0 f1 f2; do asm preserve-relocs-extern-kept $f.ptx; done
	link preserve-relocs-extern-kept -arch=$ARCH --preserve-relocs f0.cubin f1.cubin f2.cubin -o ref.cubin
}
# A fuzzed shared-memory program (make fuzz-shared, seed 20) under
# --preserve-relocs: no kernel calls f0, which writes extern __shared__
# memory.
case_preserve_relocs_extern_unreached() {
	for f in f0 f1; do asm preserve-relocs-extern-unreached $f.ptx; done
	link preserve-relocs-extern-unreached -arch=$ARCH --preserve-relocs f0.cubin f1.cubin -o ref.cubin
}
# A fuzzed shared-memory program (make fuzz-shared, seed 258) under
# --preserve-relocs: its first file is empty (every function a weak
# template, every kernel in the second).
case_preserve_relocs_empty_first() {
	for f in f0 f1; do asm preserve-relocs-empty-first $f.ptx; done
	link preserve-relocs-empty-first -arch=$ARCH --preserve-relocs f0.cubin f1.cubin -o ref.cubin
}
# A fuzzed shared-memory program (make fuzz-shared, -G, seed 18) linked
# with -g: no kernel calls f0, whose shared arrays keep their symbols.
case_debug_flag_shared_unused() {
	d=debug-flag-shared-unused
	(cd $d && ptxas -arch=$ARCH -c -g f0.ptx -o f0.cubin)
	link $d -arch=$ARCH -g f0.cubin -o ref.cubin
}
# A fuzzed shared-memory program (-G, seed 8) under --preserve-relocs:
# debug information names the extern __shared__ array.
case_preserve_relocs_extern_debug() {
	d=preserve-relocs-extern-debug
	(cd $d && for f in f0 f1; do ptxas -arch=$ARCH -c -g $f.ptx -o $f.cubin; done)
	link $d -arch=$ARCH --preserve-relocs f0.cubin f1.cubin -o ref.cubin
}
# -g with --preserve-relocs (-G objects; a.ptx of nvcc 11.8 -G -rdc -ptx
# for sm_80): kernel k writes and reads extern __shared__ float dyn[].
case_preserve_relocs_debug_extern() {
	d=preserve-relocs-debug-extern
	(cd $d && ptxas -arch=$ARCH -c -g a.ptx -o a.cubin)
	link $d -arch=$ARCH -g --preserve-relocs a.cubin -o ref.cubin
}
# a.cu: kernel parent stores the address of kernel child, which b.cu
# defines: an object whose only undefined function is a kernel.
case_placeholder_after_entry() {
	d=placeholder-after-entry
	for f in a b; do asm $d $f.ptx; done
	link $d -arch=$ARCH --preserve-relocs a.cubin b.cubin -o ref.cubin
}
case_placeholder_after_entry_debug() {
	d=placeholder-after-entry-debug
	(cd $d && for f in a b; do ptxas -arch=sm_80 -c $f.ptx -o $f.cubin; done)
	link $d -arch=sm_80 -g a.cubin b.cubin -o ref.cubin
}
case_placeholder_after_entry_plain() {
	d=placeholder-after-entry-plain
	for f in a b; do asm $d $f.ptx; done
	link $d -arch=$ARCH a.cubin b.cubin -o ref.cubin
}
# -G (a.ptx of nvcc 11.8 -G -rdc -ptx for sm_80): kernel k copies into
# extern __shared__ float dyn[] with cuda::memcpy_async (ptxas names the
# local undefined .nv.ptx.const0.size).
case_debug_const0_size_order() {
	d=debug-const0-size-order
	(cd $d && ptxas -arch=$ARCH -c -g a.ptx -o a.cubin)
	link $d -arch=$ARCH -g a.cubin -o ref.cubin
}
case_preserve_relocs_debug_extern_sm80() {
	d=preserve-relocs-debug-extern-sm80
	(cd $d && ptxas -arch=sm_80 -c -g a.ptx -o a.cubin)
	link $d -arch=sm_80 -g --preserve-relocs a.cubin -o ref.cubin
}
# A fuzzed shared-memory program (-G, seed 22) linked with -g: its extern
# __shared__ array's symbol, with only unused module shared variables.
case_debug_flag_extern_unused() {
	d=debug-flag-extern-unused
	(cd $d && ptxas -arch=$ARCH -c -g f0.ptx -o f0.cubin)
	link $d -arch=$ARCH -g f0.cubin -o ref.cubin
}
# sm_80 device functions' constant banks (.nv.constant2.<f>): a.cu, in
# a.ptx of nvcc -ptx, has f called by g, k1 and k5, h by k2, an unused one,
# k4 with constants but no call, and k5 with none of its own.
case_function_constants() {
	d=function-constants
	(cd $d && ptxas -arch=sm_80 -c a.ptx -o a.cubin)
	link $d -arch=sm_80 a.cubin -o ref.cubin
}
# Two objects: f called across them, a weak template t<3> with a constant
# in both, kernels without constants of their own.
case_function_constants_objects() {
	d=function-constants-objects
	(cd $d && for f in a b; do ptxas -arch=sm_80 -c $f.ptx -o $f.cubin; done)
	link $d -arch=sm_80 a.cubin b.cubin -o ref.cubin
}
# -G: the weak template t<3> (two constants) in three objects, linked -g.
case_function_constants_weak() {
	d=function-constants-weak
	(cd $d && for f in a b c; do ptxas -arch=sm_80 -c -g $f.ptx -o $f.cubin; done)
	link $d -arch=sm_80 -g a.cubin b.cubin c.cubin -o ref.cubin
}
# --preserve-relocs: dead and dead2 (calling dead) reached by no kernel.
case_function_constants_preserve_relocs() {
	d=function-constants-preserve-relocs
	(cd $d && ptxas -arch=sm_80 -c a.ptx -o a.cubin)
	link $d -arch=sm_80 --preserve-relocs a.cubin -o ref.cubin
}
# cuda::memcpy_async into __shared__ memory through cuda::pipeline
# (a.cu): sm_80's LDGSTS takes the shared offset by R_CUDA_ABS20_44.
case_reloc_abs20_44() {
	d=reloc-abs20-44
	(cd $d && ptxas -arch=sm_80 -c a.ptx -o a.cubin)
	link $d -arch=sm_80 a.cubin -o ref.cubin
}
# A -G host object without device code (m.cu: int main() alone).
case_no_device_code() {
	hostobj no-device-code m.cu -G
	link no-device-code -arch=$ARCH m.o -o ref.cubin
}
# a.cu: parent launches child, rec launches itself (device runtime linked).
case_cdp_self_launch() {
	asm cdp-self-launch a.ptx
	link cdp-self-launch -arch=$ARCH a.cubin -L../../cudalib -lcudadevrt -o ref.cubin
}
# A template variable (s.h: v<1>, uninitialized) in three objects' .nv.global.
case_weak_global_nobits() {
	for f in a b c; do asm weak-global-nobits $f.ptx; done
	link weak-global-nobits -arch=$ARCH a.cubin b.cubin c.cubin -o ref.cubin
}
# The same beside strong data in each object's .nv.global.
case_weak_global_order() {
	for f in a b c; do asm weak-global-order $f.ptx; done
	link weak-global-order -arch=$ARCH a.cubin b.cubin c.cubin -o ref.cubin
}
# sm_80: m (module __shared__ floats) used by k5 and k6; k1 and k3 have
# short and char arrays of their own.
case_shared_common_align_all() {
	d=shared-common-align-all
	(cd $d && ptxas -arch=sm_80 -c a.ptx -o a.cubin)
	link $d -arch=sm_80 a.cubin -o ref.cubin
}
# sm_80 cuda::barrier (a.cu): k2 calls i1 and i2 (each initializes a
# barrier), k1 calls i1 twice and z (blockIdx.z), kown initializes one
# and calls i3, which calls i1; k0 calls w (arrive only).
case_mbarrier_propagation() {
	d=mbarrier-propagation
	(cd $d && ptxas -arch=sm_80 -c a.ptx -o a.cubin)
	link $d -arch=sm_80 a.cubin -o ref.cubin
}
# Hand-written: kinit calls binit (mbarrier.init) twice; karrive calls
# barrive (mbarrier.arrive: a record of 0).
case_mbarrier_zero() {
	d=mbarrier-zero
	(cd $d && ptxas -arch=sm_80 -c a.ptx -o a.cubin)
	link $d -arch=sm_80 a.cubin -o ref.cubin
}
# a.cu: virtual destructors (delete, free) beside a virtual f; kcall
# calls f only.
case_externs_virtual_destructor() {
	asm externs-virtual-destructor a.ptx
	link externs-virtual-destructor -arch=$ARCH a.cubin -o ref.cubin
}
# externs-indirect's a.ptx with a second kernel (other) appended.
case_externs_indirect_two() {
	asm externs-indirect-two a.ptx
	link externs-indirect-two -arch=$ARCH a.cubin -o ref.cubin
}
# a.cu: kernel k calls ops[i] and ops[i ^ 1], a table of two functions.
case_callgraph_indirect_repeats() {
	asm callgraph-indirect-repeats a.ptx
	link callgraph-indirect-repeats -arch=$ARCH a.cubin -o ref.cubin
}
# sm_80: kernel k2's shared memory references all have addends (a .rela
# section alone).
case_rela_shared_sm80() {
	d=rela-shared-sm80
	(cd $d && ptxas -arch=sm_80 -c a.ptx -o a.cubin)
	link $d -arch=sm_80 a.cubin -o ref.cubin
}
# -G (a.ptx of nvcc -G): kernel ka calls area() and deletes through
# virtual destructors (shape.h): indirect call sites of two prototypes.
case_callgraph_sites_order() {
	d=callgraph-sites-order
	(cd $d && ptxas -arch=$ARCH -c -g a.ptx -o a.cubin)
	link $d -arch=$ARCH a.cubin -o ref.cubin
}
# -G (a.ptx, b.ptx of nvcc -G): the inline helper calls leaf in a.cu and
# other in b.cu (h.h); kb calls helper.
case_callgraph_replaced_copy() {
	d=callgraph-replaced-copy
	(cd $d && for f in a b; do ptxas -arch=$ARCH -c -g $f.ptx -o $f.cubin; done)
	link $d -arch=$ARCH a.cubin b.cubin -o ref.cubin
}
# sm_80 -G (a.ptx of nvcc -G): cuda::memcpy_async into extern __shared__
# memory; ptxas names .nv.ptx.const0.size, a local undefined symbol.
case_const0_size_name() {
	d=const0-size-name
	(cd $d && ptxas -arch=sm_80 -c -g a.ptx -o a.cubin)
	link $d -arch=sm_80 a.cubin -o ref.cubin
}
# Extern __shared__ memory declared, module shared data aligned to 16 or
# more: every entry gets a .nv.shared.<k> of that alignment; empty ones
# aligned past 16 go (sm_80, and .nv_debug.shared).
case_extern_shared_align_all() {
	asm extern-shared-align-all a.ptx
	link extern-shared-align-all -arch=$ARCH a.cubin -o ref.cubin
}
case_extern_shared_align_32() {
	asm extern-shared-align-32 a.ptx
	link extern-shared-align-32 -arch=$ARCH a.cubin -o ref.cubin
}
case_extern_shared_align_sm80() {
	d=extern-shared-align-sm80
	(cd $d && ptxas -arch=sm_80 -c a.ptx -o a.cubin)
	link $d -arch=sm_80 a.cubin -o ref.cubin
}
case_extern_shared_align_32_sm80() {
	d=extern-shared-align-32-sm80
	(cd $d && ptxas -arch=sm_80 -c a.ptx -o a.cubin)
	link $d -arch=sm_80 a.cubin -o ref.cubin
}

# The ".rel.text.<f>" names of functions whose relocations name another
# function or constant data once, before or after their return addresses.
case_rel_companion_order() {
	asm rel-companion-order a.ptx
	link rel-companion-order -arch=$ARCH a.cubin -o ref.cubin
}
case_rel_companion_order_sm80() {
	d=rel-companion-order-sm80
	(cd $d && ptxas -arch=sm_80 -c a.ptx -o a.cubin)
	link $d -arch=sm_80 a.cubin -o ref.cubin
}

case_rel_companion_addend() {
	asm rel-companion-addend a.ptx
	link rel-companion-addend -arch=$ARCH a.cubin -o ref.cubin
}

# sm_80: a kernel reaching printf (p) and blockIdx.z (h), beside another
# kernel: EXTERNS and CTAIDZ_USED in the order of p's and h's .nv.info.
case_externs_ctaidz_order() {
	d=externs-ctaidz-order
	(cd $d && ptxas -arch=sm_80 -c a.ptx -o a.cubin)
	link $d -arch=sm_80 a.cubin -o ref.cubin
}

# main.cubin takes the addresses of two functions lib.cubin (earlier on the
# line) defines, in the other order, and calls through a pointer.
case_callgraph_indirect_defined_earlier() {
	d=callgraph-indirect-defined-earlier
	for f in lib main; do asm $d $f.ptx; done
	link $d -arch=$ARCH lib.cubin main.cubin -o ref.cubin
}

case_shared_unreferenced() {
	asm shared-unreferenced a.ptx
	link shared-unreferenced -arch=$ARCH a.cubin -o ref.cubin
}

# preserve-relocs-module-shared's inputs linked with -g --preserve-relocs.
case_preserve_relocs_debug_module_shared() {
	d=preserve-relocs-debug-module-shared
	for f in b c wa wb; do asm $d $f.ptx; done
	link $d -arch=$ARCH -g --preserve-relocs b.cubin c.cubin wa.cubin wb.cubin -o ref.cubin
}

case_rel_companion_uft() {
	asm rel-companion-uft a.ptx
	link rel-companion-uft -arch=$ARCH a.cubin -o ref.cubin
}

# A virtual target (-arch=compute_90): nvlink reads and checks the inputs
# as for sm_90 and stops, exit status 0, no output, nothing reported of
# the duplicate and undefined functions a link for sm_90 refuses.
case_virtual_target() {
	for f in main a b; do asm virtual-target $f.ptx; done
	link virtual-target -arch=compute_90 -v main.cubin a.cubin b.cubin -o ref.cubin
}
# A cubin for any SM up to the virtual target's is taken (sm_90 refuses
# an sm_80 cubin: arch-mismatch) ...
case_virtual_target_compatible() {
	d=virtual-target-compatible
	(cd $d && ptxas -arch=sm_80 -c main80.ptx -o main80.cubin)
	asm $d foo.ptx
	link $d -arch=compute_90 main80.cubin foo.cubin -o ref.cubin
}
# ... one for a higher SM is refused, naming the target as given.
case_virtual_target_mismatch() {
	d=virtual-target-mismatch
	(cd $d && ptxas -arch=sm_80 -c main80.ptx -o main80.cubin)
	asm $d foo.ptx
	link $d -arch=compute_80 main80.cubin foo.cubin -o ref.cubin
}
# A fatbinary's ELF members are not taken, even one for the target's SM:
# only PTX it can compile; without, a warning naming the target as given.
case_virtual_target_fatbin() {
	d=virtual-target-fatbin
	(cd $d && ptxas -arch=sm_80 -c a.ptx -o a.cubin &&
		fatbinary --create=a.fatbin -64 --image3=kind=elf,sm=80,file=a.cubin --device-c)
	link $d -arch=compute_80 a.fatbin -o ref.cubin
}

if [ $# -eq 0 ]; then
	set -- $(sed -n 's/^case_\([a-z0-9_]*\)().*/\1/p' "$0" | tr _ -)
fi
for c in "$@"; do
	echo "== $c"
	"case_$(echo "$c" | tr - _)"
done

