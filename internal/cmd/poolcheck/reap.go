package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// reap sends SIGKILL to every process whose command line holds
// --user-data-dir= under dir: the Chromium processes of one pool, and no
// other browser of the machine. puppeteer starts them in a process group
// of their own, so ending browserless's group does not reach them.
func reap(dir string) int {
	mark := []byte("--user-data-dir=" + dir + string(filepath.Separator))
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	n := 0
	for _, f := range procs {
		cmdline, err := os.ReadFile(f)
		if err != nil || !bytes.Contains(cmdline, mark) {
			continue
		}
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		if err != nil || pid == os.Getpid() {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}
