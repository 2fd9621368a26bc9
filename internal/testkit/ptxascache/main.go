// Command ptxascache is a ptxas for tests that remembers ptxas's results:
// the e2e tests that replay recorded JIT and LTO links (TestJITLTO) run
// several hundred ptxas compiles, the same ones every run. warplink runs
// it as its ptxas (WARPLINK_PTXAS); it runs the ptxas PTXASCACHE_REAL
// names and keeps what it gave (exit status, messages, the cubin written
// to standard output) under PTXASCACHE_DIR, keyed by that ptxas (path,
// size, modification time), the arguments and the bytes of every input
// read through /dev/fd/N (warplink hands ptxas its PTX that way). ptxas
// is deterministic, so a result found there is what ptxas would give: the
// tests check the same bytes, faster. A run without a /dev/fd input
// (--version), or one that does not end normally, is passed through and
// not kept.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	real, dir := os.Getenv("PTXASCACHE_REAL"), os.Getenv("PTXASCACHE_DIR")
	if real == "" || dir == "" {
		fmt.Fprintln(os.Stderr, "ptxascache: PTXASCACHE_REAL and PTXASCACHE_DIR must be set")
		os.Exit(2)
	}
	args := os.Args[1:]
	key, keyed := cacheKey(real, args)
	file := filepath.Join(dir, key)
	if keyed {
		if b, err := os.ReadFile(file); err == nil {
			if rc, msgs, out, ok := decode(b); ok {
				os.Stdout.Write(out)
				os.Stderr.Write(msgs)
				os.Exit(rc)
			}
		}
	}
	cmd := exec.Command(real, args...)
	var out, msgs bytes.Buffer
	cmd.Stdin = os.Stdin
	cmd.Stdout, cmd.Stderr = &out, &msgs
	for fd := 3; fd < 10; fd++ {
		// (the /dev/fd inputs, at the same numbers: ExtraFiles[i] is fd 3+i)
		if isOpen(fd) {
			for len(cmd.ExtraFiles) < fd-3 {
				cmd.ExtraFiles = append(cmd.ExtraFiles, nil)
			}
			cmd.ExtraFiles = append(cmd.ExtraFiles, os.NewFile(uintptr(fd), "fd"))
		}
	}
	err := cmd.Run()
	os.Stdout.Write(out.Bytes())
	os.Stderr.Write(msgs.Bytes())
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.Exited()) {
		// (a ptxas that did not run or did not end normally: not kept)
		fmt.Fprintln(os.Stderr, "ptxascache:", err)
		os.Exit(2)
	}
	rc := cmd.ProcessState.ExitCode()
	if keyed && os.MkdirAll(dir, 0o755) == nil {
		tmp, err := os.CreateTemp(dir, ".tmp-")
		if err == nil {
			_, werr := tmp.Write(encode(rc, msgs.Bytes(), out.Bytes()))
			if tmp.Close() == nil && werr == nil {
				os.Rename(tmp.Name(), file)
			}
			os.Remove(tmp.Name())
		}
	}
	os.Exit(rc)
}

// cacheKey is the hex sha256 of the ptxas at real (path, size,
// modification time), args and the contents of every /dev/fd/N among
// them; ok false when there is no such input or the ptxas cannot be read.
func cacheKey(real string, args []string) (key string, ok bool) {
	fi, err := os.Stat(real)
	if err != nil {
		return "", false
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%d\x00", real, fi.Size(), fi.ModTime().UnixNano())
	for _, a := range args {
		fmt.Fprintf(h, "%d:%s\x00", len(a), a)
		if strings.HasPrefix(a, "/dev/fd/") {
			b, err := os.ReadFile(a)
			if err != nil {
				return "", false
			}
			fmt.Fprintf(h, "%d:", len(b))
			h.Write(b)
			ok = true
		}
	}
	return hex.EncodeToString(h.Sum(nil)), ok
}

// isOpen reports whether descriptor fd is open.
func isOpen(fd int) bool {
	_, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
	return err == nil
}

// encode lays out a result: exit status, the messages' length (u32
// each), the messages, the output.
func encode(rc int, msgs, out []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(rc))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(msgs)))
	return append(append(b, msgs...), out...)
}

// decode reads what encode wrote.
func decode(b []byte) (rc int, msgs, out []byte, ok bool) {
	if len(b) < 8 {
		return 0, nil, nil, false
	}
	n := int(binary.LittleEndian.Uint32(b[4:]))
	if n > len(b)-8 {
		return 0, nil, nil, false
	}
	return int(binary.LittleEndian.Uint32(b)), b[8 : 8+n], b[8+n:], true
}
