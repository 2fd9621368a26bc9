package linkflags

// ParseVersion reads a release number as --nvlink-version names it and
// as a CUDA 13 cubin's .note.nv.tkinfo records it: "12.5" (or "125") is
// 125. The major version is one to four digits, not all zeros, the minor
// one digit; ok false for anything else (a sign, white space, a second
// point, a minor of two digits), so that no text reads as another
// release ("12.-1" is not 11.9) and no number overflows.
func ParseVersion(s string) (n int, ok bool) {
	maj, min := s, ""
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			maj, min = s[:i], s[i+1:]
			break
		}
	}
	if min == "" && len(maj) == len(s) { // "125"
		if len(s) < 2 {
			return 0, false
		}
		maj, min = s[:len(s)-1], s[len(s)-1:]
	}
	if len(maj) == 0 || len(maj) > 4 || len(min) != 1 {
		return 0, false
	}
	for _, c := range []byte(maj + min) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n >= 10
}
