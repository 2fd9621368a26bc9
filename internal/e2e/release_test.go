package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/warplink/warplink/internal/linkflags"
	"github.com/warplink/warplink/internal/toolkit"
	"github.com/warplink/warplink/merge"
)

// TestCorpusAsNvlink125 links the CUDA 11.8 sm_80 corpus as nvlink 12.5
// (--nvlink-version=12.5), which accepts 11.8's sm_80 objects, and
// compares with nvlink 12.5's outputs of the same inputs (ref125*.cubin,
// made with /opt/cuda12/bin/nvlink): byte-identical, or the same failure.
func TestCorpusAsNvlink125(t *testing.T) {
	t.Parallel()
	names, dirs := corpusPrograms(t, corpusSM80)
	identical := 0
	for k, name := range names {
		for _, c := range []struct{ args, ref string }{{"link.args", "ref125"}, {"link_dc.args", "ref125_dc"}} {
			t.Run(name+"/"+c.ref, func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "out.cubin")
				opts := linkArgs(t, dirs[k], c.args, out)
				opts.NvlinkVersion = "12.5"
				if sameAsRef(t, dirs[k], opts, c.ref) {
					identical++
				}
			})
		}
	}
	if identical != 2*len(names) {
		t.Errorf("%d of %d links as nvlink 12.5", identical, 2*len(names))
	}
}

// sameAsRef links opts and reports whether the outcome is nvlink's in
// dir's ref.rc, ref.log and ref.cubin: the same exit status and diagnostics,
// and on success the same bytes (failing the test otherwise).
func sameAsRef(t *testing.T, dir string, opts *merge.Options, ref string) bool {
	var stderr bytes.Buffer
	got := merge.Link(opts, &bytes.Buffer{}, &stderr, "nvlink")
	ref = filepath.Join(dir, ref)
	rc, _ := os.ReadFile(ref + ".rc")
	log, _ := os.ReadFile(ref + ".log")
	if want := strings.TrimSpace(string(rc)); strconv.Itoa(got) != want || outOfDir(dir, stderr.String()) != string(log) {
		t.Errorf("exit status %d, nvlink %s; diagnostics:\n got %q\nwant %q", got, want, stderr.String(), log)
		return false
	}
	if got != 0 {
		return true
	}
	ours, _ := os.ReadFile(opts.Output)
	want, _ := os.ReadFile(ref + ".cubin")
	if !bytes.Equal(ours, want) {
		t.Errorf("not byte-identical to nvlink's %s.cubin", ref)
		return false
	}
	return true
}

// TestReleaseChoice: the release follows the newest input (an 11.8 sm_80
// cubin with a 12.4 or 12.5 one links as nvlink 12.4 or 12.5 does,
// e_version included), and each release's refusals, in nvlink's words
// (checked against nvlink 11.8, 12.4 and 12.5). Inputs are named relative to
// testdata/corpus, as the messages name them.
func TestReleaseChoice(t *testing.T) {
	t.Parallel()
	corpus, _ := filepath.Abs("../../testdata/corpus")
	link := func(version, arch string, inputs ...string) (int, string, []byte) {
		out := filepath.Join(t.TempDir(), "out.cubin")
		opts := &merge.Options{Flags: linkflags.Flags{Arch: arch, Output: out, Inputs: inputs, NvlinkVersion: version, Machine64: true}}
		inDirOptions(corpus, &opts.Flags)
		var stderr bytes.Buffer
		rc := merge.Link(opts, &bytes.Buffer{}, &stderr, "nvlink")
		b, _ := os.ReadFile(out)
		return rc, outOfDir(corpus, stderr.String()), b
	}
	for _, tk := range []string{"12.4", "12.5"} {
		rc, msg, out := link("", "sm_80", "cuda11.8-sm_80/constants/a.cubin", "cuda"+tk+"-sm_80/constants/b.cubin")
		want, _ := os.ReadFile(filepath.Join(corpus, "cuda"+tk+"-sm_80/constants/ref_mixed118.cubin"))
		if rc != 0 || !bytes.Equal(out, want) {
			t.Errorf("11.8 and %s sm_80 cubins: exit %d %q, not nvlink %s's bytes", tk, rc, msg, tk)
		}
	}
	for _, c := range []struct {
		version, arch string
		inputs        []string
		want          string
	}{
		{"", "sm_90", []string{"cuda11.8-sm_90/constants/a.cubin", "cuda12.5-sm_90/constants/b.cubin"},
			"nvlink fatal   : Input file 'cuda11.8-sm_90/constants/a.cubin' must be recompiled with toolkit >= Cuda 12.0\n"},
		{"", "sm_90", []string{"cuda12.5-sm_90/constants/b.cubin", "cuda11.8-sm_90/constants/a.cubin"},
			"nvlink fatal   : Input file 'cuda11.8-sm_90/constants/a.cubin' must be recompiled with toolkit >= Cuda 12.0\n"},
		{"11.8", "sm_90", []string{"cuda12.5-sm_90/constants/a.cubin"},
			"nvlink fatal   : Input file 'cuda12.5-sm_90/constants/a.cubin' newer than toolkit (125 vs 118)\n"},
		{"12.4", "sm_90", []string{"cuda12.5-sm_90/constants/a.cubin"},
			"nvlink fatal   : Input file 'cuda12.5-sm_90/constants/a.cubin' newer than toolkit (125 vs 124)\n"},
		{"12.5", "sm_90", []string{"cuda13.0-sm_90/constants/a.cubin"},
			"nvlink fatal   : Input file 'cuda13.0-sm_90/constants/a.cubin' abi does not match\n"},
		{"", "sm_90", []string{"cuda11.8-sm_90/constants/a.cubin", "cuda12.4-sm_90/constants/b.cubin"},
			"nvlink fatal   : Input file 'cuda11.8-sm_90/constants/a.cubin' must be recompiled with toolkit >= Cuda 12.0\n"},
		{"12.4", "sm_90", []string{"cuda13.0-sm_90/constants/a.cubin"},
			"nvlink warning : expected 64bit object 'cuda13.0-sm_90/constants/a.cubin' to have EF_CUDA_64BIT_ADDRESS set\n" +
				"nvlink fatal   : Input file 'cuda13.0-sm_90/constants/a.cubin' arch does not match target 'sm_90'\n"},
		{"11.8", "sm_90", []string{"cuda13.0-sm_90/constants/a.cubin"},
			"nvlink warning : expected 64bit object 'cuda13.0-sm_90/constants/a.cubin' to have EF_CUDA_64BIT_ADDRESS set\n" +
				"nvlink fatal   : Input file 'cuda13.0-sm_90/constants/a.cubin' arch does not match target 'sm_90'\n"},
	} {
		rc, msg, out := link(c.version, c.arch, c.inputs...)
		if rc != 1 || msg != c.want || out != nil {
			t.Errorf("%s %v: exit %d, output %v:\n got %q\nwant %q", c.version, c.inputs, rc, out != nil, msg, c.want)
		}
	}
}

// TestCorpus125OptionsNvlink links the CUDA 12.5 corpora (both
// architectures, cubins and host objects) with the options nvcc and
// builds pass (-g, --preserve-relocs, both, --kernels-used, libcudadevrt
// kept), with warplink and with nvlink 12.5 (WARPLINK_NVLINK125, by
// default /opt/cuda12/bin/nvlink; skipped without it), and requires the
// same exit status and diagnostics, and byte-identical outputs. nvlink
// makes all its links first, in one batch (runNvlinkBatch), each into
// the output file warplink then writes.
func TestCorpus125OptionsNvlink(t *testing.T) {
	t.Parallel()
	corpusOptionsNvlink(t, "12.5", envOr("WARPLINK_NVLINK125", "/opt/cuda12/bin/nvlink"), libdir12, corpus125SM90, corpus125SM80)
}

// TestCorpus124OptionsNvlink does the same for the CUDA 12.4 corpora and
// nvlink 12.4 (WARPLINK_NVLINK124, by default /opt/cuda124/bin/nvlink, a
// second root of ../shared/tools/install-cuda12-toolkit.sh:
// CUDA12_VERSION=12.4 CUDA12_ROOT=/opt/cuda124root CUDA12_PREFIX=/opt/cuda124).
func TestCorpus124OptionsNvlink(t *testing.T) {
	t.Parallel()
	corpusOptionsNvlink(t, "12.4", envOr("WARPLINK_NVLINK124", "/opt/cuda124/bin/nvlink"), libdir124, corpus124SM90, corpus124SM80)
}

// corpusOptionsNvlink links the corpora rels with each option set, with
// warplink and with the nvlink of release rel at path nvlink (skipped
// without it), libcudadevrt.a from lib, and requires the same outcome.
func corpusOptionsNvlink(t *testing.T, rel, nvlink, lib string, rels ...string) {
	if r := toolkit.NvlinkRelease(nvlink); r != rel {
		t.Skipf("no nvlink %s at %s (release %q)", rel, nvlink, r)
	}
	type link struct {
		corpus, name, out string
		args, extra       []string
	}
	var links []link
	var jobs []nvlinkJob
	tmp := t.TempDir() // the links' outputs, by link (one folder: creating folders costs)
	for _, dir := range rels {
		corpus, _ := filepath.Abs(dir)
		names, dirs := corpusPrograms(t, corpus)
		for k, name := range names {
			for _, file := range []string{"link.args", "link_dc.args"} {
				for _, extra := range [][]string{{"-g"}, {"--preserve-relocs"}, {"-g", "--preserve-relocs"},
					{"--kernels-used=main"}, {"-L" + lib, "-lcudadevrt", "--keep-system-libraries"}} {
					out := filepath.Join(tmp, strconv.Itoa(len(links))+".cubin")
					args, err := cliLinkArgsFrom(dirs[k], file, lib, out)
					if err != nil {
						t.Fatal(err)
					}
					args = append(args, extra...)
					links = append(links, link{filepath.Base(corpus), name + "/" + file, out, args, extra})
					jobs = append(jobs, nvlinkJob{dirs[k], args})
				}
			}
		}
	}
	nv := runNvlinkBatch(t, nvlink, jobs)
	same := 0
	for k, l := range links {
		ref, _ := os.ReadFile(l.out)
		os.Remove(l.out)
		var log bytes.Buffer
		rc := linkCLI(jobs[k].dir, l.args, &log)
		ours, _ := os.ReadFile(l.out)
		if rc != nv[k].rc || log.String() != nv[k].out || !bytes.Equal(ours, ref) {
			t.Errorf("%s/%s %v: exit %d (nvlink %d), diagnostics %q (nvlink %q), outputs identical: %v",
				l.corpus, l.name, l.extra, rc, nv[k].rc, log.String(), nv[k].out, bytes.Equal(ours, ref))
			continue
		}
		same++
	}
	t.Logf("%d links as nvlink %s links them", same, rel)
}
