module github.com/warplink/warplink

go 1.26.8

require (
	github.com/klauspost/compress v1.20.3
	golang.org/x/sync v0.24.0
)

require github.com/ebitengine/purego v0.11.3
