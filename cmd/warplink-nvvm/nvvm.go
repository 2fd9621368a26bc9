package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ebitengine/purego"
	"github.com/warplink/warplink/internal/nvvmproto"
)

// libnvvm is the loaded library's entry points nvlink uses.
type libnvvm struct {
	path               string
	createProgram      func(*uintptr) int32
	destroyProgram     func(*uintptr) int32
	compileProgram     func(uintptr, int32, **byte) int32
	getResultSize      func(uintptr, *uintptr) int32
	getResult          func(uintptr, *byte) int32
	getLogSize         func(uintptr, *uintptr) int32
	getLog             func(uintptr, *byte) int32
	getErrorString     func(int32) string
	handle             func(uint32) uintptr
	addWrappedModuleFn uintptr // __nvvmHandle(0x2080)
}

// symbols are the entry points a library must have to be used.
func symbols() []string {
	return []string{"nvvmCreateProgram", "nvvmDestroyProgram", "nvvmCompileProgram", "nvvmGetCompiledResultSize",
		"nvvmGetCompiledResult", "nvvmGetProgramLogSize", "nvvmGetProgramLog", "nvvmGetErrorString", "__nvvmHandle"}
}

// candidates lists the libraries to try, in order: nvlink's own
// <nvvmpath>/lib64/libnvvm.so; then where toolkits really install it: the
// system loader's libnvvm.so.4 and libnvvm.so (Debian and Ubuntu put
// libnvvm.so.4 in the multiarch folder, which nvlink 11.8 never looks at),
// $CUDA_HOME and $CUDA_PATH's nvvm/lib64, /usr/local/cuda/nvvm/lib64.
func candidates(nvvmPath string) []string {
	var c []string
	if nvvmPath != "" {
		c = append(c, filepath.Join(nvvmPath, "lib64", "libnvvm.so"))
	}
	c = append(c, "libnvvm.so.4", "libnvvm.so")
	for _, env := range []string{"CUDA_HOME", "CUDA_PATH"} {
		if d := os.Getenv(env); d != "" {
			c = append(c, filepath.Join(d, "nvvm", "lib64", "libnvvm.so"))
		}
	}
	return append(c, "/usr/local/cuda/nvvm/lib64/libnvvm.so")
}

// load opens the first usable library of candidates(nvvmPath).
func load(nvvmPath string) (*libnvvm, error) {
	var tried []string
	for _, p := range candidates(nvvmPath) {
		h, err := purego.Dlopen(p, purego.RTLD_NOW|purego.RTLD_LOCAL)
		if err != nil {
			tried = append(tried, p+" (not found)")
			continue
		}
		missing := ""
		for _, s := range symbols() {
			if _, err := purego.Dlsym(h, s); err != nil {
				missing = s
				break
			}
		}
		if missing != "" {
			tried = append(tried, fmt.Sprintf("%s (no %s: not a libnvvm nvlink can use)", p, missing))
			purego.Dlclose(h)
			continue
		}
		l := &libnvvm{path: p}
		purego.RegisterLibFunc(&l.createProgram, h, "nvvmCreateProgram")
		purego.RegisterLibFunc(&l.destroyProgram, h, "nvvmDestroyProgram")
		purego.RegisterLibFunc(&l.compileProgram, h, "nvvmCompileProgram")
		purego.RegisterLibFunc(&l.getResultSize, h, "nvvmGetCompiledResultSize")
		purego.RegisterLibFunc(&l.getResult, h, "nvvmGetCompiledResult")
		purego.RegisterLibFunc(&l.getLogSize, h, "nvvmGetProgramLogSize")
		purego.RegisterLibFunc(&l.getLog, h, "nvvmGetProgramLog")
		purego.RegisterLibFunc(&l.getErrorString, h, "nvvmGetErrorString")
		purego.RegisterLibFunc(&l.handle, h, "__nvvmHandle")
		// nvlink adds its modules through the private entry
		// __nvvmHandle(0x2080) returns, f(prog, buf, size, name): it
		// takes the fatbinary's wrapped IR (ED 43 4E 7F ...), which the
		// public nvvmAddModuleToProgram refuses.
		if l.addWrappedModuleFn = l.handle(0x2080); l.addWrappedModuleFn == 0 {
			tried = append(tried, p+" (__nvvmHandle(0x2080) is null: not the libnvvm of CUDA 11)")
			continue
		}
		return l, nil
	}
	return nil, fmt.Errorf("no usable libnvvm: tried %s", strings.Join(tried, ", "))
}

// cstr is s as a NUL-terminated C string.
func cstr(s string) *byte {
	b := append([]byte(s), 0)
	return &b[0]
}

// compile runs the request's program.
func compile(req *nvvmproto.Request) *nvvmproto.Reply {
	l, err := load(req.NVVMPath)
	if err != nil {
		return &nvvmproto.Reply{Status: nvvmproto.NoLibrary, Message: err.Error()}
	}
	var addModule func(uintptr, *byte, uintptr, *byte) int32
	purego.RegisterFunc(&addModule, l.addWrappedModuleFn)
	var prog uintptr
	if r := l.createProgram(&prog); r != 0 {
		return &nvvmproto.Reply{Status: nvvmproto.Failed, Message: "nvvmCreateProgram: " + l.getErrorString(r)}
	}
	defer l.destroyProgram(&prog)
	for i, m := range req.Modules {
		data := m.Data
		if len(data) == 0 {
			data = []byte{0}
		}
		if r := addModule(prog, &data[0], uintptr(len(m.Data)), cstr(m.Name)); r != 0 {
			return &nvvmproto.Reply{Status: nvvmproto.AddFailed, Module: int32(i), Message: l.getErrorString(r)}
		}
	}
	opts := make([]*byte, len(req.Options)+1)
	for i, o := range req.Options {
		opts[i] = cstr(o)
	}
	res := l.compileProgram(prog, int32(len(req.Options)), &opts[0])
	rep := &nvvmproto.Reply{Status: nvvmproto.Compiled, Result: res, Message: l.path}
	var n uintptr
	if l.getLogSize(prog, &n) == 0 && n > 1 {
		buf := make([]byte, n)
		l.getLog(prog, &buf[0])
		rep.Log = trimNUL(buf)
	}
	if res == 0 || res == 100 {
		if l.getResultSize(prog, &n) == 0 && n > 0 {
			buf := make([]byte, n)
			l.getResult(prog, &buf[0])
			rep.PTX = trimNUL(buf)
		}
	} else {
		rep.Message = l.getErrorString(res)
	}
	return rep
}

// trimNUL drops the NULs that end libnvvm's strings.
func trimNUL(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	return b
}
