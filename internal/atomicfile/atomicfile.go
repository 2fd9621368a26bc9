// Package atomicfile writes an output file so that it appears complete or
// not at all: data goes to a temporary file in the target's folder, which
// Commit renames over the target. On error, Abort, or a signal handled by a
// Registry, the temporary file is removed and an existing target is left
// untouched.
package atomicfile

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// Registry tracks the files created through it that are not yet committed
// or aborted, so that a signal handler can remove them. Create one in main.
type Registry struct {
	mu      sync.Mutex
	pending map[*File]struct{}
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{pending: map[*File]struct{}{}}
}

// File is an output file being written. Write to it through the embedded
// *os.File, then call Commit or Abort exactly once (Abort after Commit is a
// no-op, so `defer f.Abort()` is safe).
type File struct {
	*os.File
	path   string // the target
	tmp    string // the temporary file; "" when writing the target directly
	reg    *Registry
	mu     sync.Mutex
	closed bool
}

// Create starts writing path without a registry.
func Create(path string) (*File, error) { return create(path, nil) }

// Create starts writing path and tracks it until Commit or Abort.
func (r *Registry) Create(path string) (*File, error) { return create(path, r) }

func create(path string, r *Registry) (*File, error) {
	// nvlink writes through a symbolic link: replace the file it points
	// to, not the link.
	if st, err := os.Lstat(path); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		if real, err := filepath.EvalSymlinks(path); err == nil {
			path = real
		}
	}
	// A target that exists and is not a regular file (/dev/null, a FIFO,
	// /dev/stdout) is written in place: renaming over it would be wrong.
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return nil, err
		}
		return &File{File: f, path: path}, nil
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	for try := 0; ; try++ {
		tmp := filepath.Join(dir, "."+base+".tmp"+strconv.FormatUint(rand.Uint64()%1e12, 36))
		f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		if err != nil {
			return nil, err
		}
		af := &File{File: f, path: path, tmp: tmp, reg: r}
		if r != nil {
			r.mu.Lock()
			r.pending[af] = struct{}{}
			r.mu.Unlock()
		}
		return af, nil
	}
}

// Path is the target path.
func (f *File) Path() string { return f.path }

// finish closes the file once and unregisters it; first is false if the
// file was already finished.
func (f *File) finish() (first bool, closeErr error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false, nil
	}
	f.closed = true
	if f.reg != nil {
		f.reg.mu.Lock()
		delete(f.reg.pending, f)
		f.reg.mu.Unlock()
	}
	return true, f.File.Close()
}

// Commit closes the file and moves it to the target path. If anything
// fails, the temporary file is removed and the target is untouched.
func (f *File) Commit() error {
	first, err := f.finish()
	if !first {
		return errors.New("atomicfile: " + f.path + " already committed or aborted")
	}
	if f.tmp == "" {
		return err
	}
	if err == nil {
		err = os.Rename(f.tmp, f.path)
	}
	if err != nil {
		os.Remove(f.tmp)
	}
	return err
}

// Abort closes and removes the temporary file. It is a no-op after Commit.
func (f *File) Abort() error {
	first, _ := f.finish()
	if !first || f.tmp == "" {
		return nil
	}
	return os.Remove(f.tmp)
}

// RemovePending removes the temporary files of every file not yet
// committed or aborted. It is safe to call from a signal handler goroutine.
func (r *Registry) RemovePending() {
	r.mu.Lock()
	files := make([]*File, 0, len(r.pending))
	for f := range r.pending {
		files = append(files, f)
	}
	r.mu.Unlock()
	for _, f := range files {
		f.Abort()
	}
}

// HandleSignals removes pending temporary files when one of sigs arrives,
// then lets the signal terminate the process as it would have (so the exit
// status still reports the signal). stop undoes the handler.
func (r *Registry) HandleSignals(sigs ...os.Signal) (stop func()) {
	c := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(c, sigs...)
	go func() {
		select {
		case sig := <-c:
			r.RemovePending()
			signal.Reset(sig)
			if p, err := os.FindProcess(os.Getpid()); err == nil && p.Signal(sig) == nil {
				time.Sleep(time.Second) // the re-raised signal ends the process
			}
			os.Exit(1)
		case <-done:
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			signal.Stop(c)
			close(done)
		})
	}
}
