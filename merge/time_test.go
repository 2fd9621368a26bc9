package merge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAppendTime: the --time file gets the column headings only while it
// is empty, as nvlink writes it; rows are appended run after run.
func TestAppendTime(t *testing.T) {
	const hdr = "source file name , phase name , phase input files , phase output file , arch , tool, metric , unit\n"
	p := filepath.Join(t.TempDir(), "t.csv")
	AppendTime(p, nil, nil)
	AppendTime(p, nil, []string{"a.ptx , ptxas , a.ptx ,  , sm_80 , nvlink , 30.6350 , ms"})
	AppendTime(p, nil, []string{" , read , 1 , o , sm_80 , warplink , 0.100 , ms"})
	b, err := os.ReadFile(p)
	if want := hdr + "a.ptx , ptxas , a.ptx ,  , sm_80 , nvlink , 30.6350 , ms\n , read , 1 , o , sm_80 , warplink , 0.100 , ms\n"; err != nil || string(b) != want {
		t.Errorf("file:\n%s\nwant:\n%s (%v)", b, want, err)
	}
	var out strings.Builder
	AppendTime("-", &out, []string{"x"})
	if out.String() != hdr+"x\n" {
		t.Errorf("stdout: %q", out.String())
	}
}
