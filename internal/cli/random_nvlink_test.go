package cli

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestOptionsFileRandomAgainstNvlink gives nvlink and warplink random
// options files of "-zz" and up to ten characters of quotes, backslashes,
// white space and letters: nvlink names the first word it read in its
// "Unknown option" message, or refuses the file (a stray quote or final
// backslash); warplink's message must be the same. (It found the blanks
// a word loses at its ends and the final backslash.)
func TestOptionsFileRandomAgainstNvlink(t *testing.T) {
	needNvlink(t)
	dir := t.TempDir()
	f := filepath.Join(dir, "optf")
	r := rand.New(rand.NewPCG(67, 1))
	const alphabet = "ab\"\\ \t\n'\r="
	for i := range 150 {
		b := []byte("-zz")
		for range 1 + r.IntN(10) {
			b = append(b, alphabet[r.IntN(len(alphabet))])
		}
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, want, _ := nvlinkRun(t, dir, "-optf", f)
		_, got, _ := parse([]string{"-optf", f}, os.ReadFile)
		if got != want {
			t.Errorf("case %d, %q: warplink %q, nvlink %q", i, b, got, want)
		}
	}
}

// TestCommandLineRandomAgainstNvlink gives nvlink random command lines of
// up to six words from options and values (good and bad) that warplink
// refuses while parsing or checking them: nvlink must print the same
// message (and warnings) and exit with status 1. (It found -ghls's
// optional value, -o needed only for an sm_ target and met by -o=, and
// libraries not counting as the input files -ghls refuses.)
func TestCommandLineRandomAgainstNvlink(t *testing.T) {
	needNvlink(t)
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(67, 9))
	words := []string{"-arch", "sm_90", "sm_80", "-arch=sm_9x", "--arch=compute_90", "-arch=lto_90", "-o", "x.cubin",
		"-m", "32", "-m64", "-m32", "-L", "d", "-l", "m", "-lm", "-g", "--debug", "-maxrregcount", "12x", "0x20",
		"-cuda-api-version", "11.8", "11", "-suppress-debug-info", "-ghls", "lcs-aug", "lcs-x", "-dlto", "-lto",
		"-nvvmpath", "-emit-ptx", "--kernels-used=k", "-Werror", "-w", "-v", "-zz", "--nope",
		"-disable-smem-reservation", "true", "maybe", "a.cubin", "b.cubin", "-", "--", "-o=", "-arch=", "=",
		"-cpu-arch", "X86_64", "x86", "-force-whole-lto", "-force-partial-lto", "-preserve-relocs",
		"-syscall-const-offset", "5", "-kernels-used", ",", "--machine", "64,32", "-Xptxas", "-O3", "-uumn", "-r", "-shared"}
	for i := range 150 {
		var args []string
		for range 1 + r.IntN(6) {
			args = append(args, words[r.IntN(len(words))])
		}
		_, got, code := parse(args, os.ReadFile)
		// (nvlink warns of --preserve-relocs for sm_90 and compute_90 before
		// its later checks; warplink when linking: not compared.)
		if code != 1 || slices.Contains(args, "-preserve-relocs") {
			continue
		}
		if _, want, wcode := nvlinkRun(t, dir, args...); got != want || wcode != 1 {
			t.Errorf("case %d %q: warplink %q, nvlink %q (status %d)", i, args, got, want, wcode)
		}
	}
}

// TestAPIVersionRandomAgainstNvlink gives nvlink random -cuda-api-version
// values (digits, points, signs, white space, letters): warplink refuses
// the same, with the same message (parseAPIVersion's sscanf reading).
func TestAPIVersionRandomAgainstNvlink(t *testing.T) {
	needNvlink(t)
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(67, 3))
	const alphabet = "0111889.+- x\t"
	for i := range 100 {
		var v []byte
		for range 1 + r.IntN(7) {
			v = append(v, alphabet[r.IntN(len(alphabet))])
		}
		args := []string{"-arch=sm_90", "-o", "x.cubin", "a.cubin", "-cuda-api-version", string(v)}
		_, got, code := parse(args, os.ReadFile)
		if code != 1 {
			got = "nvlink fatal   : Could not open input file 'a.cubin'\n" // (accepted: nvlink goes on to the inputs)
		}
		if _, want, _ := nvlinkRun(t, dir, args...); got != want {
			t.Errorf("case %d %q: warplink %q, nvlink %q", i, v, got, want)
		}
	}
}
