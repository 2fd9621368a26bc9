package merge

import (
	"testing"

	"github.com/warplink/warplink/internal/linkflags"
)

func TestGlobMatch(t *testing.T) {
	for _, c := range []struct {
		p, name string
		want    bool
	}{
		{"_Z2tk*", "_Z2tkIfEvPT_i", true},
		{"_Z2tk*", "_Z2tk", true},
		{"_Z2tk*", "_Z7my_Z2tkPfi", false}, // the whole name, from its start
		{"_Z6used_k*", "_Z8unused_kPfi", false},
		{"__nv_static_25__85ece8ad_4_c_cu_23f90cbb_*8static_k*", "__nv_static_25__85ece8ad_4_c_cu_23f90cbb__Z8static_kPfi", true},
		{"__nv_static_25__85ece8ad_4_c_cu_23f90cbb_*8static_k*", "__nv_static_25__85ece8ad_4_c_cu_23f90cbb__Z13static_unusedPfi", false},
		{"a*b*c", "aXXbYYbZZc", true},
		{"a*b*c", "aXXbYYbZZ", false},
		{"abc", "abc", true},
		{"abc", "abcd", false},
		{"*", "", true},
		{"", "", true},
		{"", "a", false},
		{"**x", "yx", true},
	} {
		if got := globMatch(c.p, c.name); got != c.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", c.p, c.name, got, c.want)
		}
	}
}

func TestHostKernelSet(t *testing.T) {
	objs := []*Obj{
		{rare: &objRare{host: objHost{kernels: []string{"_Z2tk*", "_Z7via_api*"}}}},
		{},
		{System: true, rare: &objRare{host: objHost{kernels: []string{"__nv_static_44__x_*16memcpy_3d_device*"}}}},
	}
	ctx := &Context{Opts: &Options{}, Objs: objs}
	set := hostKernels(ctx)
	if set == nil {
		t.Fatal("hostKernels: nil for a link whose host objects name kernels")
	}
	for name, want := range map[string]bool{
		"_Z2tkIiEvPT_i": true, "_Z7via_apiPfi": true, "_Z2tlv": false,
		"__nv_static_44__x__Z16memcpy_3d_deviceIjEvv": true, "_Z7my_Z2tkPfi": false,
	} {
		if got := set.match(name); got != want {
			t.Errorf("match(%q) = %v, want %v", name, got, want)
		}
	}
	// Not used: an object without the information, none naming a
	// kernel, or an option that turns it off.
	for _, c := range []struct {
		name    string
		objs    []*Obj
		opts    Options
		missing bool // an input without the information (read)
	}{
		{"plain cubin", objs, Options{}, true},
		{"no kernel named", []*Obj{{}, objs[2]}, Options{}, false},
		{"-g", objs, Options{Flags: linkflags.Flags{Debug: true}}, false},
		{"--ignore-host-info", objs, Options{Flags: linkflags.Flags{IgnoreHostInfo: true}}, false},
		{"--kernels-used", objs, Options{Flags: linkflags.Flags{KernelsUsed: []string{"x"}}}, false},
		{"--variables-used", objs, Options{Flags: linkflags.Flags{VariablesUsed: []string{"x"}}}, false},
	} {
		ctx := &Context{Opts: &c.opts, Objs: c.objs, hostInfoMissing: c.missing}
		ctx.setKeepPolicy()
		if hostKernels(ctx) != nil {
			t.Errorf("%s: host information used", c.name)
		}
	}
}
