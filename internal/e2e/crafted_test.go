package e2e

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/cli"
	"github.com/warplink/warplink/internal/cmpelf"
	"github.com/warplink/warplink/internal/diag"
	"github.com/warplink/warplink/internal/linkflags"
	"github.com/warplink/warplink/merge"
)

// TestCrafted links every case of testdata/crafted (one per rule of the
// seeds) with its recorded link.args and requires the recording nvlink's
// exit status, diagnostics and output bytes.
func TestCrafted(t *testing.T) {
	t.Parallel()
	root, _ := filepath.Abs("../../testdata/crafted")
	ents, _ := os.ReadDir(root)
	// A case's nvlink12.5/ and nvlink12.4/ folders hold its inputs built
	// and linked with CUDA 12.5 and 12.4 (gen125.sh): linked too, as that
	// nvlink, which the inputs' toolkit chooses.
	var cases []string
	for _, e := range ents {
		for _, name := range []string{e.Name(), e.Name() + "/nvlink12.5", e.Name() + "/nvlink12.4"} {
			if _, err := os.Stat(filepath.Join(root, name, "link.args")); err != nil {
				continue
			}
			if e.Name() == "many-sections-xindex" && testing.Short() {
				continue
			}
			cases = append(cases, name)
		}
	}
	passed := make([]bool, len(cases))
	t.Run("cases", func(t *testing.T) {
		for k, name := range cases {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				problems := craftedCase(t, filepath.Join(root, name))
				if len(problems) > 0 {
					t.Errorf("%s", strings.Join(problems, "\n"))
				}
				passed[k] = len(problems) == 0
			})
		}
	})
	pass := 0
	for _, p := range passed {
		if p {
			pass++
		}
	}
	t.Logf("crafted cases: %d of %d reproduce nvlink (11.8; nvlink12.5/ and nvlink12.4/ record 12.5 and 12.4)", pass, len(cases))
}

// craftedCase links the crafted case in dir and lists how the outcome
// differs from the recording nvlink's.
func craftedCase(t *testing.T, dir string) (problems []string) {
	tmp := t.TempDir()
	// Inputs are read from the case folder; gzipped ones are unpacked
	// beside a copy of the others.
	work := dir
	if gz, _ := filepath.Glob(filepath.Join(dir, "*.gz")); len(gz) > 0 {
		work = tmp
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			name := e.Name()
			if strings.HasSuffix(name, ".gz") {
				zr, err := gzip.NewReader(bytes.NewReader(b))
				if err != nil {
					t.Fatal(err)
				}
				b, _ = io.ReadAll(zr)
				name = strings.TrimSuffix(name, ".gz")
			}
			os.WriteFile(filepath.Join(tmp, name), b, 0o644)
		}
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "link.args"))
	args := strings.Fields(string(raw))
	out := filepath.Join(tmp, "out.cubin")
	for i, a := range args {
		if a == "ref.cubin" && i > 0 && args[i-1] == "-o" {
			args[i] = out
		}
	}
	var stderr bytes.Buffer
	rc := linkCLI(work, args, &stderr)
	wantRC, _ := os.ReadFile(filepath.Join(dir, "ref.rc"))
	wantLog, _ := os.ReadFile(filepath.Join(dir, "ref.log"))
	if strconv.Itoa(rc) != strings.TrimSpace(string(wantRC)) {
		problems = append(problems, "exit status "+strconv.Itoa(rc)+", nvlink "+strings.TrimSpace(string(wantRC)))
	}
	if got := errorLines(stderr.String()); got != errorLines(string(wantLog)) {
		problems = append(problems, "diagnostics: got "+strconv.Quote(got)+" want "+strconv.Quote(errorLines(string(wantLog))))
	}
	// nvlink wrote no output (a failed link, a virtual target): neither
	// may warplink.
	recorded := false
	for _, name := range []string{"ref.cubin", "ref.sections", "ref.sha256"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			recorded = true
		}
	}
	if _, err := os.Stat(out); err == nil && !recorded {
		problems = append(problems, "output written where nvlink writes none")
	}
	if ref, err := os.ReadFile(filepath.Join(dir, "ref.cubin")); err == nil {
		ours, err := os.ReadFile(out)
		if err != nil {
			problems = append(problems, "no output written")
		} else if rep, err := cmpelf.Compare(ours, ref); err != nil {
			problems = append(problems, "compare: "+err.Error())
		} else if !rep.Identical {
			problems = append(problems, "output not byte-identical: "+strings.Join(firstN(rep.Diffs, 4), "; "))
		}
	}
	// Cases too large to store nvlink's output record its section count.
	if want, err := os.ReadFile(filepath.Join(dir, "ref.sections")); err == nil {
		ours, err := os.ReadFile(out)
		f, perr := elf.Parse(ours)
		switch {
		case err != nil:
			problems = append(problems, "no output written")
		case perr != nil:
			problems = append(problems, "output does not parse: "+perr.Error())
		case strconv.Itoa(len(f.Sections)) != strings.TrimSpace(string(want)):
			problems = append(problems, "section count "+strconv.Itoa(len(f.Sections))+", nvlink "+strings.TrimSpace(string(want)))
		}
	}
	if want, err := os.ReadFile(filepath.Join(dir, "ref.sha256")); err == nil {
		ours, _ := os.ReadFile(out)
		if got := fmt.Sprintf("%x", sha256.Sum256(ours)); got != strings.Fields(string(want))[0] {
			problems = append(problems, "output sha256 "+got+" differs from nvlink's")
		}
	}
	return problems
}

// linkCLI runs a link from an nvlink command line, as cmd/warplink does,
// with relative paths (in args, in the options files they name, and in
// diagnostics) taken against dir instead of the working directory, so
// that tests need not change directory and can run in parallel ("" for
// the working directory).
func linkCLI(dir string, args []string, stderr io.Writer) int {
	bag := &diag.Bag{}
	readFile := func(p string) ([]byte, error) { return os.ReadFile(inDir(dir, p)) }
	cmd, err := cli.Parse(args, readFile, bag)
	if err == nil {
		err = cmd.Check()
	}
	var log bytes.Buffer
	defer func() { io.WriteString(stderr, outOfDir(dir, log.String())) }()
	if err != nil || bag.Failed() {
		bag.Print(&log, "nvlink")
		if err != nil && !bag.Failed() {
			io.WriteString(&log, "nvlink fatal   : "+err.Error()+"\n")
		}
		return 1
	}
	bag.Print(&log, "nvlink")
	inDirOptions(dir, &cmd.Opts)
	return merge.Link(&merge.Options{Flags: cmd.Opts, Warplink: cmd.Warplink, Tuning: merge.Tuning{CheckNames: true}}, io.Discard, &log, "nvlink")
}

// inDir is path p taken against folder dir: p itself when absolute, when
// dir is "", or when p names standard output ("-"); else dir/p, joined
// without cleaning so that the diagnostics, with dir/ cut out, name p as
// given.
func inDir(dir, p string) string {
	if dir == "" || p == "" || p == "-" || filepath.IsAbs(p) {
		return p
	}
	return dir + "/" + p
}

// outOfDir is diagnostics with the paths inDir made relative again: dir/
// cut out.
func outOfDir(dir, diags string) string {
	if dir == "" {
		return diags
	}
	return strings.ReplaceAll(diags, dir+"/", "")
}

// inDirOptions takes the relative paths of o (inputs, -L folders, output
// and the files options name) against dir (see inDir).
func inDirOptions(dir string, o *linkflags.Flags) {
	for i, in := range o.Inputs {
		if !strings.HasPrefix(in, "-l") {
			o.Inputs[i] = inDir(dir, in)
		}
	}
	for i, d := range o.LibDirs {
		o.LibDirs[i] = inDir(dir, d)
	}
	o.Output = inDir(dir, o.Output)
	o.RegisterLinkBinaries = inDir(dir, o.RegisterLinkBinaries)
	o.Time = inDir(dir, o.Time)
}

// errorLines is a log without trailing blank lines.
func errorLines(log string) string {
	return strings.TrimRight(log, "\n")
}
