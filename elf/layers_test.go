package elf

import (
	"go/build"
	"strings"
	"testing"
)

// TestImportsNoLinkerPackage keeps elf and its subpackages pure decoders
// and encoders: their code imports no other package of the module (no
// memory mapping, no input reading, no linking) but elf itself.
func TestImportsNoLinkerPackage(t *testing.T) {
	const module = "github.com/warplink/warplink/"
	for _, dir := range []string{".", "ar", "fatbin", "hostobj"} {
		pkg, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range pkg.Imports {
			if strings.HasPrefix(imp, module) && imp != module+"elf" {
				t.Errorf("elf/%s imports %s", dir, imp)
			}
		}
	}
}
