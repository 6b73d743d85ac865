// Package xvfb starts a private X display for tests that drive a headed
// browser: Xvfb picks a free display number itself (-displayfd) and says it
// once it accepts clients, so two test binaries never share or race for a
// display. It imports neither rod nor chromedp: both backends' tests use it.
package xvfb

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// EnvRequire names an environment variable that, when set, makes a test
// that needs a headed browser fail, not skip, where Xvfb or Chromium is
// missing: CI sets it (.ci/run), so headed rows never go green untested.
const EnvRequire = "TABGUARD_HEADED"

// Unavailable ends t, which needs a headed browser that could not start
// for err: a skip that says what to install, or a failure when
// $TABGUARD_HEADED is set.
func Unavailable(t testing.TB, err error) {
	t.Helper()
	msg := fmt.Sprintf("no headed browser: %v (make browser installs chromium and xvfb when run as root)", err)
	if os.Getenv(EnvRequire) != "" {
		t.Fatalf("%s; %s is set, so headed tests must run", msg, EnvRequire)
	}
	t.Skip(msg)
}

// Screen is the size and depth of the display's one screen.
const Screen = "1280x1024x24"

// ErrNotInstalled reports that no Xvfb binary is on PATH.
var ErrNotInstalled = errors.New("no Xvfb found: install the xvfb package")

// Display is a running Xvfb server. The caller should call Stop when
// finished.
type Display struct {
	// Name is the value for DISPLAY, such as ":3".
	Name string

	cmd    *exec.Cmd
	stderr *syncBuffer
	once   sync.Once
}

// Start starts Xvfb on a free display number with one screen of Screen,
// listening on its Unix socket only, and returns once it accepts clients,
// or after 10 s with an error that holds what Xvfb printed.
func Start() (*Display, error) {
	bin, err := exec.LookPath("Xvfb")
	if err != nil {
		return nil, ErrNotInstalled
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	d := &Display{stderr: &syncBuffer{}}
	// The pipe's write end is fd 3 in Xvfb (the first of ExtraFiles).
	d.cmd = exec.Command(bin, "-displayfd", "3", "-screen", "0", Screen, "-nolisten", "tcp")
	d.cmd.ExtraFiles = []*os.File{w}
	d.cmd.Stderr = d.stderr
	// A group of its own: a signal to the test's process group (Ctrl-C)
	// reaches the test, whose cleanup stops Xvfb.
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := d.cmd.Start(); err != nil {
		_ = w.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	_ = w.Close() // Xvfb holds its own copy: an exit before it says ends the read
	name, err := readDisplay(r)
	if err != nil {
		d.Stop()
		return nil, fmt.Errorf("xvfb did not start: %w: %s", err, strings.TrimSpace(d.stderr.String()))
	}
	d.Name = ":" + name
	return d, nil
}

// startTimeout bounds how long Start waits for Xvfb to take a display.
const startTimeout = 10 * time.Second

// readDisplay reads the display number Xvfb writes to its -displayfd once
// it accepts clients.
func readDisplay(r *os.File) (string, error) {
	if err := r.SetReadDeadline(time.Now().Add(startTimeout)); err != nil {
		return "", err
	}
	var buf []byte
	b := make([]byte, 16)
	for !bytes.Contains(buf, []byte("\n")) {
		n, err := r.Read(b)
		buf = append(buf, b[:n]...)
		if err != nil {
			return "", fmt.Errorf("no display number (%w)", err)
		}
	}
	s := strings.TrimSpace(string(buf))
	if _, err := strconv.Atoi(s); err != nil {
		return "", fmt.Errorf("display number %q", s)
	}
	return s, nil
}

// Env returns env less any DISPLAY, plus DISPLAY for d: the environment
// of a browser that draws on d. The caller's own environment is left as
// it is.
func (d *Display) Env(env []string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "DISPLAY=") {
			out = append(out, kv)
		}
	}
	return append(out, "DISPLAY="+d.Name)
}

// Stop ends Xvfb and waits for it to exit, which removes its lock file and
// socket. It is safe to call more than once.
func (d *Display) Stop() {
	d.once.Do(func() {
		_ = d.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = d.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = d.cmd.Process.Kill()
			<-done
		}
	})
}

// syncBuffer is a bytes.Buffer that Xvfb's stderr copier and Start's
// error report can use at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
