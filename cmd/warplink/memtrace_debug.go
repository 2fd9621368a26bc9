//go:build memtrace

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
)

func init() { memTrace = memTraceLine }

func memTraceLine(pass string) {
	if path := os.Getenv("WARPLINK_HEAPPROFILE_AT"); path != "" && strings.HasPrefix(path, pass+":") {
		// A heap profile of what is live as this pass ends (with -tags
		// pprof, sampled every 4 KiB).
		if f, err := os.Create(path[len(pass)+1:]); err == nil {
			runtime.GC()
			pprof.Lookup("heap").WriteTo(f, 0)
			f.Close()
		}
	}
	st, _ := os.ReadFile("/proc/self/status")
	get := func(b []byte, key string) string {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, key) {
				return strings.Join(strings.Fields(l[len(key):]), "")
			}
		}
		return "?"
	}
	sr, _ := os.ReadFile("/proc/self/smaps_rollup")
	names := []string{"/memory/classes/total:bytes", "/memory/classes/heap/objects:bytes", "/memory/classes/heap/unused:bytes", "/memory/classes/heap/free:bytes", "/memory/classes/heap/released:bytes", "/memory/classes/heap/stacks:bytes", "/gc/cycles/total:gc-cycles", "/gc/heap/allocs:bytes"}
	s := make([]metrics.Sample, len(names))
	for i := range s {
		s[i].Name = names[i]
	}
	metrics.Read(s)
	v := func(i int) float64 { return float64(s[i].Value.Uint64()) / (1 << 20) }
	fmt.Fprintf(os.Stderr, "MEM %-9s rss=%s file=%s hwm=%s thp=%s thr=%s | go total=%.1f obj=%.1f unused=%.1f free=%.1f rel=%.1f stk=%.1f gc=%d alloc=%.1f\n",
		pass, get(st, "VmRSS:"), get(st, "RssFile:"), get(st, "VmHWM:"), get(sr, "AnonHugePages:"), get(st, "Threads:"), v(0), v(1), v(2), v(3), v(4), v(5), s[6].Value.Uint64(), v(7))
	if pass == "write" || pass == "finalize" {
		f, err := os.ReadFile("/proc/self/smaps")
		if err != nil {
			return
		}
		type m struct {
			head     string
			rss, thp int
		}
		var ms []m
		sc := bufio.NewScanner(bytes.NewReader(f))
		for sc.Scan() {
			l := sc.Text()
			fs := strings.Fields(l)
			if len(fs) > 0 && strings.Contains(fs[0], "-") && !strings.HasSuffix(fs[0], ":") {
				ms = append(ms, m{head: l})
				continue
			}
			if len(ms) > 0 && len(fs) >= 2 {
				n, _ := strconv.Atoi(fs[1])
				switch fs[0] {
				case "Rss:":
					ms[len(ms)-1].rss = n
				case "AnonHugePages:":
					ms[len(ms)-1].thp = n
				}
			}
		}
		sort.Slice(ms, func(i, j int) bool { return ms[i].rss > ms[j].rss })
		for i := 0; i < len(ms) && i < 8; i++ {
			fmt.Fprintf(os.Stderr, "MAP %6d kB thp %6d kB %s\n", ms[i].rss, ms[i].thp, ms[i].head)
		}
	}
}
