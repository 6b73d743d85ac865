package faultrows

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// DiscardLocalState is the "Local State" file that turns chrome://discards
// on in a fresh user-data dir: Chrome turns its internal debugging pages
// off unless the Local State says otherwise.
const DiscardLocalState = `{"internal_only_uis_enabled": true}`

// DiscardJS discards the tab whose URL starts with its argument, when
// evaluated (awaiting its promise) in a tab at chrome://discards of a
// browser whose user-data dir holds DiscardLocalState. It resolves to
// "discarded" or says why not.
const DiscardJS = `(url) => import('chrome://discards/discards.js').then(async m => {
	const p = m.getOrCreateDetailsProvider();
	const tab = (await p.getTabDiscardsInfo()).infos.find(i => i.tabUrl.startsWith(url));
	if (!tab) return 'no tab at ' + url;
	await p.discardById(tab.id, 0); // 0: an external discard, which an attached client does not prevent
	return 'discarded';
})`

// ErrNoProcfs reports a machine without Linux's /proc, where renderer
// processes cannot be found.
var ErrNoProcfs = errors.New("no /proc to find renderer processes in")

// KillRenderers SIGKILLs every renderer process of the browser whose
// process is pid: the descendants whose command line has --type=renderer.
// A tab cannot be mapped to its PID, so the browser should hold only the
// row's tab. It returns how many it killed.
func KillRenderers(pid int) (int, error) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		return 0, ErrNoProcfs
	}
	children := map[int][]int{}
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // the process exited meanwhile
		}
		// pid (comm) state ppid ...; comm may hold spaces and parentheses.
		fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
		if len(fields) < 2 {
			continue
		}
		child, err1 := strconv.Atoi(filepath.Base(filepath.Dir(path)))
		parent, err2 := strconv.Atoi(fields[1])
		if err1 == nil && err2 == nil {
			children[parent] = append(children[parent], child)
		}
	}
	killed := 0
	for queue := []int{pid}; len(queue) > 0; {
		p := queue[0]
		queue = append(queue[1:], children[p]...)
		cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(p) + "/cmdline")
		if bytes.Contains(cmdline, []byte("--type=renderer")) && syscall.Kill(p, syscall.SIGKILL) == nil {
			killed++
		}
	}
	if killed == 0 {
		return 0, fmt.Errorf("no renderer process under browser PID %d", pid)
	}
	return killed, nil
}
