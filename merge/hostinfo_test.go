package merge

import "testing"

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
		{HostInfo: true, hostKernels: []string{"_Z2tk*", "_Z7via_api*"}},
		{HostInfo: true},
		{System: true, hostKernels: []string{"__nv_static_44__x_*16memcpy_3d_device*"}},
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
		name string
		objs []*Obj
		opts Options
	}{
		{"plain cubin", append(objs[:2:2], &Obj{}), Options{}},
		{"no kernel named", []*Obj{{HostInfo: true}, objs[2]}, Options{}},
		{"-g", objs, Options{Debug: true}},
		{"--ignore-host-info", objs, Options{IgnoreHostInfo: true}},
		{"--kernels-used", objs, Options{KernelsUsed: []string{"x"}}},
		{"--variables-used", objs, Options{VariablesUsed: []string{"x"}}},
	} {
		if hostKernels(&Context{Opts: &c.opts, Objs: c.objs}) != nil {
			t.Errorf("%s: host information used", c.name)
		}
	}
}
