package elf

import (
	"go/build"
	"strings"
	"testing"
)

// TestImportsNoLinkerPackage keeps elf and its subpackages pure decoders
// and encoders: their code imports no other package of the module (no
// memory mapping, no input reading, no linking) but elf itself and the
// zstd decoder, which itself imports no package of the module.
func TestImportsNoLinkerPackage(t *testing.T) {
	const module = "github.com/warplink/warplink/"
	allowed := map[string]bool{module + "elf": true, module + "internal/zstd": true}
	for _, dir := range []string{".", "ar", "fatbin", "hostobj", "../internal/zstd"} {
		pkg, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range pkg.Imports {
			if strings.HasPrefix(imp, module) && !allowed[imp] {
				t.Errorf("elf/%s imports %s", dir, imp)
			}
		}
	}
}
