// Package demangle turns Itanium C++ ABI symbol names into the text nvlink
// prints for them (nvlink --dump-callgraph), which is cu++filt's style
// rather than c++filt's: template parameters stay as T1, T2, ... in the
// parameter list ("void foo<int>(T1 *)"), integer template arguments are
// written as casts ("poly<(int)4>"), pointers and references are spaced
// ("float *", "const int &"), and nested template closers are not
// ("vector<int, std::allocator<int>>").
//
// It covers what device code names use: nested names, templates, literal
// and type template arguments, substitutions, builtin types, pointers,
// references, cv-qualifiers, arrays, function pointers, packs, operators,
// constructors and destructors, the anonymous namespace. Anything else
// (expressions, lambdas, member pointers, vendor types) reports ok=false,
// and callers print the name as it is, as nvlink does for names its
// demangler rejects.
//
// The package is pure: no goroutines, no state between calls.
package demangle

import (
	"strconv"
	"strings"
	"sync"
)

// Demangle returns the demangled form of name and true, or name and false
// when name is not a mangled name this package understands.
func Demangle(name string) (string, bool) {
	if !strings.HasPrefix(name, "_Z") {
		return name, false
	}
	p := &parser{s: name, i: 2, budget: maxOutput}
	for code, text := range specialNames() {
		if p.eat(code) {
			t, ok := p.typ()
			if !ok || p.i != len(p.s) {
				return name, false
			}
			if out := text + p.render(t, ""); p.budget >= 0 {
				return out, true
			}
			return name, false
		}
	}
	out, ok := p.encoding()
	if !ok || p.i != len(p.s) || p.budget < 0 {
		return name, false
	}
	return out, true
}

// specialNames are the data names cu++filt spells out.
var specialNames = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"TV": "Virtual function table for ",
		"TI": "Typeinfo for ",
		"TS": "Typeinfo name for ",
	}
})

// maxDepth bounds recursion on hostile input.
const maxDepth = 200

type parser struct {
	s      string
	i      int
	depth  int
	budget int     // characters render may still build (see render)
	subs   []*node // substitution candidates, in order
}

// maxOutput bounds the text built for one name: far above any real name,
// far below what a hostile one could make.
const maxOutput = 1 << 16

// node is a parsed type or name.
type node struct {
	kind  kind
	text  string  // leaf text (names, builtins, template params)
	tight bool    // a name prefix or template name: "A&", not "A &"
	inner *node   // pointer/ref/cv/array/pack: the element
	quals string  // cv: "const", "volatile", "const volatile"
	dim   string  // array dimension
	ret   *node   // function type: return type
	args  []*node // function type: parameters
}

type kind int

const (
	leaf kind = iota
	pointer
	lref
	rref
	cv
	array
	fn
	pack
)

func (p *parser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *parser) eat(s string) bool {
	if strings.HasPrefix(p.s[p.i:], s) {
		p.i += len(s)
		return true
	}
	return false
}

// encoding parses the whole symbol: <name> [<bare-function-type>] (a
// data name has no parameters).
func (p *parser) encoding() (string, bool) {
	n, ok := p.name()
	if !ok {
		return "", false
	}
	if p.i == len(p.s) || p.peek() == 'E' {
		if n.isFunc {
			return "", false
		}
		return n.text, true
	}
	var ret string
	if n.templated && !n.ctor {
		r, ok := p.typ()
		if !ok {
			return "", false
		}
		ret = p.render(r, "") + " "
	}
	var params []string
	for p.i < len(p.s) && p.peek() != 'E' {
		t, ok := p.typ()
		if !ok {
			return "", false
		}
		params = append(params, p.render(t, ""))
	}
	if len(params) == 1 && params[0] == "void" {
		params = nil
	}
	out := ret + n.text + "(" + strings.Join(params, ", ") + ")"
	if n.quals != "" {
		out += " " + n.quals
	}
	return out + n.suffix, true
}

// name is a parsed <name>.
type name struct {
	text      string
	templated bool   // ends in template arguments (has a return type)
	ctor      bool   // constructor, destructor or conversion (no return type)
	isFunc    bool   // ctor/dtor: must have parameters
	quals     string // member function cv-qualifiers
	suffix    string // " [subobject]" and the like
}

func (p *parser) name() (name, bool) {
	switch {
	case p.peek() == 'N':
		return p.nested()
	case p.peek() == 'Z':
		return name{}, false // local names
	}
	prefix := ""
	if p.eat("St") {
		prefix = "std::"
	}
	if p.peek() == 'S' {
		// A substitution followed by template arguments.
		sub, ok := p.substitution()
		if !ok || p.peek() != 'I' {
			return name{}, false
		}
		args, ok := p.templateArgs()
		if !ok {
			return name{}, false
		}
		full := &node{text: p.render(sub, "") + args}
		p.subs = append(p.subs, full)
		return name{text: full.text, templated: true}, true
	}
	u, _, _, ok := p.unqualified("")
	if !ok {
		return name{}, false
	}
	u = prefix + u
	if p.peek() == 'I' {
		p.subs = append(p.subs, &node{text: u, tight: true})
		args, ok := p.templateArgs()
		if !ok {
			return name{}, false
		}
		return name{text: u + args, templated: true}, true
	}
	return name{text: u}, true
}

// nested parses N [<CV-qualifiers>] <prefix> <unqualified-name> E.
func (p *parser) nested() (name, bool) {
	p.i++ // N
	var n name
	n.quals = p.cvQuals()
	p.eat("R") // ref-qualifiers are not printed by cu++filt either
	p.eat("O")
	var parts []string
	last := ""
	for !p.eat("E") {
		if p.i >= len(p.s) {
			return name{}, false
		}
		n.templated, n.ctor, n.isFunc, n.suffix = false, false, false, ""
		switch c := p.peek(); {
		case c == 'S' && len(parts) == 0:
			if p.eat("St") {
				parts = append(parts, "std")
				continue
			}
			sub, ok := p.substitution()
			if !ok {
				return name{}, false
			}
			s := p.render(sub, "")
			parts = append(parts, s)
			last = lastComponent(s)
			continue
		case c == 'I':
			if len(parts) == 0 {
				return name{}, false
			}
			args, ok := p.templateArgs()
			if !ok {
				return name{}, false
			}
			parts[len(parts)-1] += args
			n.templated = true
		default:
			u, k, sfx, ok := p.unqualified(last)
			if !ok {
				return name{}, false
			}
			if k == plainName && strings.HasPrefix(u, "_INTERNAL_") && p.peek() != 'E' {
				// The namespace nvcc wraps a file's internal-linkage
				// names in (_INTERNAL_<hash>_<len>_<file>_<hash>):
				// cu++filt leaves it out ("static __device__ int sf(int)"
				// prints as sf(int)), but it still counts among the
				// substitutions.
				p.subs = append(p.subs, &node{text: strings.Join(parts, "::"), tight: true})
				continue
			}
			parts = append(parts, u)
			last = u
			n.ctor = k != plainName
			n.isFunc = k == structor
			n.suffix = sfx
		}
		if p.peek() != 'E' {
			p.subs = append(p.subs, &node{text: strings.Join(parts, "::"), tight: true})
		}
	}
	n.text = strings.Join(parts, "::")
	return n, true
}

func lastComponent(s string) string {
	if i := strings.IndexByte(s, '<'); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndex(s, "::"); i >= 0 {
		s = s[i+2:]
	}
	return s
}

// unqualified parses a source name, operator, constructor or destructor;
// class is the enclosing class name, which constructors and destructors
// repeat. kind tells constructors and destructors (printed with suffix)
// and conversion operators apart from plain names.
func (p *parser) unqualified(class string) (text string, k unqualKind, suffix string, ok bool) {
	c := p.peek()
	switch {
	case c >= '0' && c <= '9':
		id, ok := p.sourceName()
		return id, plainName, "", ok
	case (c == 'C' || c == 'D') && p.i+1 < len(p.s) && class != "":
		sfx, ok := structors()[p.s[p.i:p.i+2]]
		if !ok {
			return "", 0, "", false
		}
		p.i += 2
		if c == 'D' {
			class = "~" + class
		}
		return class, structor, sfx, true
	case c == 'c' && strings.HasPrefix(p.s[p.i:], "cv"):
		p.i += 2
		t, ok := p.typ()
		if !ok {
			return "", 0, "", false
		}
		return "operator " + p.render(t, ""), conversion, "", true
	case c >= 'a' && c <= 'z' && p.i+1 < len(p.s):
		op, ok := operators()[p.s[p.i:p.i+2]]
		if !ok {
			return "", 0, "", false
		}
		p.i += 2
		return "operator " + op, plainName, "", true
	}
	return "", 0, "", false
}

type unqualKind int

const (
	plainName unqualKind = iota
	structor
	conversion
)

// structors are the constructor and destructor codes with the suffix
// cu++filt prints after the parameters.
var structors = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"C1": "", "C2": " [subobject]", "C3": "",
		"D0": " [deleting]", "D1": "", "D2": " [subobject]",
	}
})

// operators are the operator codes cu++filt prints as "operator <sym>".
var operators = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"ps": "+", "ng": "-", "ad": "&", "de": "*", "co": "~", "pl": "+", "mi": "-",
		"ml": "*", "dv": "/", "rm": "%", "an": "&", "or": "|", "eo": "^", "aS": "=",
		"pL": "+=", "mI": "-=", "mL": "*=", "dV": "/=", "rM": "%=", "aN": "&=",
		"oR": "|=", "eO": "^=", "ls": "<<", "rs": ">>", "lS": "<<=", "rS": ">>=",
		"eq": "==", "ne": "!=", "lt": "<", "gt": ">", "le": "<=", "ge": ">=",
		"nt": "!", "aa": "&&", "oo": "||", "pp": "++", "mm": "--", "cm": ",",
		"pm": "->*", "pt": "->", "cl": "()", "ix": "[]",
	}
})

func (p *parser) number() (int, bool) {
	j := p.i
	for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
		j++
	}
	if j == p.i || j-p.i > 9 {
		return 0, false
	}
	n, _ := strconv.Atoi(p.s[p.i:j])
	p.i = j
	return n, true
}

func (p *parser) sourceName() (string, bool) {
	n, ok := p.number()
	if !ok || n == 0 || p.i+n > len(p.s) {
		return "", false
	}
	id := p.s[p.i : p.i+n]
	p.i += n
	if strings.HasPrefix(id, "_GLOBAL__N") {
		return "<unnamed>", true
	}
	return id, true
}

func (p *parser) cvQuals() string {
	var r, v, k bool
	for {
		switch {
		case !r && p.eat("r"):
			r = true
			continue
		case !v && p.eat("V"):
			v = true
			continue
		case !k && p.eat("K"):
			k = true
			continue
		}
		break
	}
	var q []string
	if k {
		q = append(q, "const")
	}
	if v {
		q = append(q, "volatile")
	}
	if r {
		q = append(q, "restrict")
	}
	return strings.Join(q, " ")
}

// templateArgs parses I <template-arg>+ E and returns "<...>"; the
// arguments become the template parameters T1, T2, ... of what follows.
func (p *parser) templateArgs() (string, bool) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth || !p.eat("I") {
		return "", false
	}
	args, ok := p.argList()
	if !ok {
		return "", false
	}
	return "<" + args + ">", true
}

// argList parses <template-arg>* E and returns the arguments rendered and
// joined by ", ".
func (p *parser) argList() (string, bool) {
	var args []string
	for !p.eat("E") {
		if p.i >= len(p.s) {
			return "", false
		}
		a, ok := p.templateArg()
		if !ok {
			return "", false
		}
		args = append(args, p.render(a, ""))
	}
	return strings.Join(args, ", "), true
}

func (p *parser) templateArg() (*node, bool) {
	switch {
	case p.eat("L"):
		if p.peek() == '_' {
			return nil, false // external names (L_Z...E)
		}
		t, ok := p.typ()
		if !ok || t.kind != leaf {
			return nil, false
		}
		neg := p.eat("n")
		j := p.i
		for p.i < len(p.s) && p.s[p.i] != 'E' {
			if c := p.s[p.i]; c < '0' || c > '9' {
				return nil, false
			}
			p.i++
		}
		if p.i == j || !p.eat("E") {
			return nil, false
		}
		v := p.s[j : p.i-1]
		if neg {
			v = "-" + v
		}
		return &node{text: "(" + t.text + ")" + v}, true
	case p.eat("J"): // an argument pack
		args, ok := p.argList()
		if !ok {
			return nil, false
		}
		return &node{text: args}, true
	case p.peek() == 'X':
		return nil, false // expressions
	}
	return p.typ()
}

// builtins are the one-letter builtin types.
var builtins = sync.OnceValue(func() map[byte]string {
	return map[byte]string{
		'v': "void", 'w': "wchar_t", 'b': "bool", 'c': "char", 'a': "signed char",
		'h': "unsigned char", 's': "short", 't': "unsigned short", 'i': "int",
		'j': "unsigned int", 'l': "long", 'm': "unsigned long", 'x': "long long",
		'y': "unsigned long long", 'n': "__int128", 'o': "unsigned __int128",
		'f': "float", 'd': "double", 'e': "long double", 'g': "__float128", 'z': "...",
	}
})

func (p *parser) typ() (*node, bool) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth || p.i >= len(p.s) {
		return nil, false
	}
	c := p.peek()
	if b, ok := builtins()[c]; ok {
		p.i++
		return &node{text: b}, true
	}
	var t *node
	switch c {
	case 'r', 'V', 'K':
		q := p.cvQuals()
		in, ok := p.typ()
		if !ok || in.kind == fn {
			return nil, false
		}
		t = &node{kind: cv, quals: q, inner: in}
	case 'P', 'R', 'O':
		p.i++
		in, ok := p.typ()
		if !ok {
			return nil, false
		}
		k := pointer
		switch c {
		case 'R':
			k = lref
		case 'O':
			k = rref
		}
		t = &node{kind: k, inner: in}
	case 'F':
		p.i++
		ret, ok := p.typ()
		if !ok {
			return nil, false
		}
		f := &node{kind: fn, ret: ret}
		for !p.eat("E") {
			if p.i >= len(p.s) {
				return nil, false
			}
			a, ok := p.typ()
			if !ok {
				return nil, false
			}
			f.args = append(f.args, a)
		}
		if len(f.args) == 1 && f.args[0].kind == leaf && f.args[0].text == "void" {
			f.args = nil
		}
		t = f
	case 'A':
		p.i++
		n, ok := p.number()
		if !ok || !p.eat("_") {
			return nil, false
		}
		in, ok := p.typ()
		if !ok {
			return nil, false
		}
		t = &node{kind: array, dim: strconv.Itoa(n), inner: in}
	case 'T':
		p.i++
		n := 0
		if !p.eat("_") {
			v, ok := p.number()
			if !ok || !p.eat("_") {
				return nil, false
			}
			n = v + 1
		}
		t = &node{text: "T" + strconv.Itoa(n+1)}
		if p.peek() == 'I' {
			return nil, false // template template parameters
		}
	case 'D':
		switch {
		case p.eat("Dp"):
			in, ok := p.typ()
			if !ok {
				return nil, false
			}
			t = &node{kind: pack, inner: in}
		case p.eat("Dn"):
			return &node{text: "std::nullptr_t"}, true
		default:
			return nil, false
		}
	case 'S':
		if p.eat("St") {
			n, ok := p.className("std::")
			return n, ok
		}
		sub, ok := p.substitution()
		if !ok {
			return nil, false
		}
		if p.peek() != 'I' {
			return sub, true
		}
		args, ok := p.templateArgs()
		if !ok {
			return nil, false
		}
		t = &node{text: p.render(sub, "") + args}
	case 'N', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return p.className("")
	default:
		return nil, false
	}
	p.subs = append(p.subs, t)
	return t, true
}

// className parses a class or enum type name; the name itself (and a
// template-name before its arguments) are substitution candidates.
func (p *parser) className(prefix string) (*node, bool) {
	if p.peek() == 'N' {
		n, ok := p.nested()
		if !ok || n.isFunc || n.quals != "" {
			return nil, false
		}
		t := &node{text: prefix + n.text}
		p.subs = append(p.subs, t)
		return t, true
	}
	id, ok := p.sourceName()
	if !ok {
		return nil, false
	}
	t := &node{text: prefix + id}
	if p.peek() == 'I' {
		t.tight = true
	}
	p.subs = append(p.subs, t)
	if p.peek() == 'I' {
		args, ok := p.templateArgs()
		if !ok {
			return nil, false
		}
		t = &node{text: t.text + args}
		p.subs = append(p.subs, t)
	}
	return t, true
}

// standard are the abbreviations cu++filt expands.
var standard = sync.OnceValue(func() map[byte]string {
	return map[byte]string{
		'a': "std::allocator",
		'b': "std::basic_string",
		's': "std::basic_string<char, std::char_traits<char>, std::allocator<char>>",
		'i': "std::basic_istream<char, std::char_traits<char>>",
		'o': "std::basic_ostream<char, std::char_traits<char>>",
		'd': "std::basic_iostream<char, std::char_traits<char>>",
	}
})

func (p *parser) substitution() (*node, bool) {
	if !p.eat("S") || p.i >= len(p.s) {
		return nil, false
	}
	c := p.peek()
	if s, ok := standard()[c]; ok {
		p.i++
		return &node{text: s}, true
	}
	id := 0
	if c != '_' {
		// seq-id: base 36 with digits then upper-case letters.
		for p.i < len(p.s) && p.peek() != '_' {
			d := p.peek()
			switch {
			case d >= '0' && d <= '9':
				id = id*36 + int(d-'0')
			case d >= 'A' && d <= 'Z':
				id = id*36 + int(d-'A') + 10
			default:
				return nil, false
			}
			if id > 1<<20 {
				return nil, false
			}
			p.i++
		}
		id++
	}
	if !p.eat("_") || id >= len(p.subs) {
		return nil, false
	}
	return p.subs[id], true
}

// render prints type t around the declarator text decl ("*", "(&)[3]").
func (p *parser) render(t *node, decl string) string {
	// Substitutions can name trees that already hold substitutions, so
	// the text can double every few input bytes: a budget on what is
	// built keeps a hostile name from costing more than a long one.
	p.budget -= len(decl) + len(t.text) + len(t.quals) + 1
	if p.budget < 0 {
		return ""
	}
	switch t.kind {
	case pointer:
		return p.render(t.inner, "*"+decl)
	case lref:
		return p.render(t.inner, "&"+decl)
	case rref:
		return p.render(t.inner, "&&"+decl)
	case cv:
		switch t.inner.kind {
		case pointer, lref, rref:
			if decl == "" {
				return p.render(t.inner, t.quals)
			}
			return p.render(t.inner, t.quals+" "+decl)
		}
		return t.quals + " " + p.render(t.inner, decl)
	case array:
		if strings.HasPrefix(decl, "*") || strings.HasPrefix(decl, "&") {
			decl = "(" + decl + ")"
		}
		return p.render(t.inner, decl+"["+t.dim+"]")
	case fn:
		if strings.HasPrefix(decl, "*") || strings.HasPrefix(decl, "&") {
			decl = "(" + decl + ")"
		}
		params := make([]string, len(t.args))
		for i, a := range t.args {
			params[i] = p.render(a, "")
		}
		return p.render(t.ret, decl+"("+strings.Join(params, ", ")+")")
	case pack:
		return p.render(t.inner, decl) + "..."
	}
	switch {
	case decl == "":
		return t.text
	case t.tight:
		return t.text + decl
	}
	return t.text + " " + decl
}
