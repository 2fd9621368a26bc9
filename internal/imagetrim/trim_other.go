//go:build !(linux && (amd64 || arm64))

package imagetrim

// Release does nothing here (see trim_linux.go).
func Release() {}
