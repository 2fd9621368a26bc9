package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// toolkitMajor is the CUDA major version of nvlink 11.8, warplink's
// release when none is named or chosen.
const toolkitMajor = 11

// Check applies nvlink's consistency checks to a parsed command line that
// is not a -h or -V request, in nvlink's order, and returns the first
// fatal problem. It also sets APIVersion from -cuda-api-version.
func (c *Command) Check() error {
	o := &c.Opts
	if c.SuppressDebugInfo && !o.Debug {
		return errf("Conflicting options '-suppress-debug-info' and 'no -g'")
	}
	hasFile := false
	for _, in := range o.Inputs {
		hasFile = hasFile || !strings.HasPrefix(in, "-l")
	}
	if c.HostLinkerScript != "" {
		// (Libraries do not count: nvlink 11.8 writes the script.)
		if hasFile {
			return errf("Input files are not allowed with -ghls option; use --help for more information")
		}
		return nil
	}
	if o.Arch == "" {
		return errf("Unknown arch name '(null)'")
	}
	// (Only a real architecture needs an output: nvlink 11.8 with
	// compute_90 or lto_90 and no -o goes on to the checks below; so does
	// an empty one, -o=.)
	if !c.outputGiven && strings.HasPrefix(o.Arch, "sm_") {
		return errf("Must specify output file with -o option")
	}
	if !hasFile {
		return errf("No input files specified; use option --help for more information")
	}
	if strings.HasPrefix(o.Arch, "lto_") {
		return errf("Link target of '%s' is virtual target that is not JIT-able; use 'sm_' target instead", o.Arch)
	}
	if c.LTO && c.NVVMPath == "" {
		return errf("-nvvmpath should be specified with -lto")
	}
	for _, f := range []struct {
		on   bool
		name string
	}{{c.EmitPTX, "-emit-ptx"}, {c.ForceWholeLTO, "-force-whole-lto"}, {c.ForcePartialLTO, "-force-partial-lto"}} {
		if f.on && !c.LTO {
			return errf("Conflicting options '%s' and 'no -dlto'", f.name)
		}
	}
	if c.ForceWholeLTO && c.ForcePartialLTO {
		return errf("Conflicting options '-force-partial-lto' and '-force-whole-lto'")
	}
	if !o.Machine64 && archNumber(o.Arch) >= 90 {
		return errf("Option '-m32' not supported for gpu architecture '%s'", o.Arch)
	}
	if c.CUDAAPIVersion != "" {
		major, minor, ok := parseAPIVersion(c.CUDAAPIVersion)
		if !ok {
			return errf("--cuda-api-version value cannot be parsed")
		}
		const msg = "--cuda-api-version major number must be == toolkit version"
		switch {
		case c.Release != 0 && int(major) != c.Release/10:
			return errf(msg)
		case c.Release == 0 && (major < toolkitMajor || major > 13):
			return errf(msg)
		case c.Release == 0:
			// (The inputs choose the release: refused then by any other.)
			c.releaseUses = append(c.releaseUses, releaseUse{from: int(major) * 10, to: int(major)*10 + 10, msg: msg})
		}
		c.APIVersion = major*10 + minor
	}
	if c.UidxFile != "" {
		// (nvlink 12.5 opens it, and fails so when it cannot.)
		f, err := os.Open(c.UidxFile)
		if err != nil {
			return errf("Could not open input file '%s'", c.UidxFile)
		}
		f.Close()
	}
	return nil
}

// archNumber is the number in "sm_90" or "compute_90" (0 if none).
func archNumber(arch string) int {
	n, _ := strconv.Atoi(arch[strings.IndexByte(arch, '_')+1:])
	return n
}

// parseAPIVersion reads "MAJOR.MINOR" like C's sscanf("%u.%u %n"): leading
// white space and a sign are allowed in each number, a negative number
// wraps, and only white space may follow.
func parseAPIVersion(s string) (major, minor uint32, ok bool) {
	major, s, ok = scanUint(s)
	if !ok || !strings.HasPrefix(s, ".") {
		return 0, 0, false
	}
	minor, s, ok = scanUint(s[1:])
	if !ok || strings.TrimLeft(s, " \t\n\r\f\v") != "" {
		return 0, 0, false
	}
	return major, minor, true
}

// scanUint is one %u conversion.
func scanUint(s string) (uint32, string, bool) {
	s = strings.TrimLeft(s, " \t\n\r\f\v")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	i := 0
	var v uint32
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		v = v*10 + uint32(s[i]-'0')
		i++
	}
	if i == 0 {
		return 0, s, false
	}
	if neg {
		v = -v
	}
	return v, s[i:], true
}

// augScript is the host linker script fragment -ghls lcs-aug writes; it
// keeps the sections that carry device code together.
const augScript = "SECTIONS\n{\n\t.nvFatBinSegment : { *(.nvFatBinSegment) }\n\t__nv_relfatbin : { *(__nv_relfatbin) } \n\t.nv_fatbin : { *(.nv_fatbin) }\n}\n"

// WriteHostLinkerScript writes the -ghls script to w. For "lcs-abs" it
// first asks the host linker for its default script (with the options the
// host compiler ccbin, default gcc, would pass it), as nvlink does.
func WriteHostLinkerScript(w io.Writer, kind, ccbin string, machine64 bool) error {
	if kind == "lcs-abs" {
		if ccbin == "" {
			ccbin = "gcc"
		}
		m := "-m64"
		if !machine64 {
			m = "-m32"
		}
		pipeline := fmt.Sprintf(`ld --verbose $(%s -### /dev/null  %s  2>&1 | grep collect2  | grep -wo -e -pie -e "-z [^[:space:]]*" -e "-m [^[:space:]]*" -e -r -e -shared  | tr "\n" " " ) | grep -Fvx -e "$(ld -V)" | sed '1,2d;$d'`, ccbin, m)
		var out bytes.Buffer
		cmd := exec.Command("sh", "-c", pipeline)
		cmd.Stdout = &out
		if err := cmd.Run(); err != nil || out.Len() == 0 {
			return errf("Could not generate the host linker script with '%s'", ccbin)
		}
		if _, err := w.Write(out.Bytes()); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, augScript)
	return err
}
