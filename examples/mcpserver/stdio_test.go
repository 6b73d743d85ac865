package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/agentprompt"
)

// server builds the command once for the test and starts it over real
// stdio, with a temporary folder of the test's own, where the browser's
// profile folder goes, and env (NAME=value) on top of the test's
// environment, less any OTEL_ variable. Closing the session closes stdin
// and waits for the exit: the transport signals the server only after a
// minute, so a server that does not exit on its own is caught by the
// test's deadline, never stopped for it.
func server(t *testing.T, env ...string) (*mcp.ClientSession, *exec.Cmd, string) {
	t.Helper()
	bin := buildServer(t)
	tmp := t.TempDir()
	cmd := exec.Command(bin, "-eval-timeout", "2s")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OTEL_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(append(cmd.Env, "TMPDIR="+tmp), env...)
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0.0.1"}, nil).
		Connect(testContext(t, 30*time.Second), &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Minute}, nil)
	require.NoError(t, err)
	return cs, cmd, tmp
}

// built is the command the stdio tests share, built on first use
// (buildServer) into a folder TestMain removes.
var built struct {
	sync.Mutex
	dir, bin string
	err      error
}

// buildServer builds the command, once for all the tests, and returns its
// path.
func buildServer(t *testing.T) string {
	t.Helper()
	built.Lock()
	defer built.Unlock()
	if built.bin == "" && built.err == nil {
		built.dir, built.bin, built.err = build()
	}
	require.NoError(t, built.err)
	return built.bin
}

// build builds the command into a new temporary folder dir, within 5
// minutes; dir is set even when the build fails, for removeServer.
func build() (dir, bin string, err error) {
	if dir, err = os.MkdirTemp("", "tabguard-mcpserver-bin-"); err != nil {
		return "", "", err
	}
	bin = filepath.Join(dir, "mcpserver")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return dir, "", fmt.Errorf("go build: %w: %s", err, out)
	}
	return dir, bin, nil
}

// removeServer removes the command buildServer built, if any.
func removeServer() {
	built.Lock()
	defer built.Unlock()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
}

// profiles lists the browser profile folders left in tmp.
func profiles(t *testing.T, tmp string) []string {
	t.Helper()
	left, err := filepath.Glob(filepath.Join(tmp, "tabguard-mcpserver-*"))
	require.NoError(t, err)
	return left
}

// Over real stdio, a client sees every tool, drives a tab, and the server
// exits on its own when stdin closes, leaving no profile folder behind and
// sending its spans to the OTLP collector the environment names.
func TestStdio(t *testing.T) {
	col := newCollector(t)
	cs, cmd, tmp := server(t, "OTEL_EXPORTER_OTLP_ENDPOINT="+col.URL)
	tools, err := cs.ListTools(testContext(t, 10*time.Second), nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	assert.ElementsMatch(t, []string{"list_tabs", "open_tab", "navigate", "reload_tab", "close_tab", "handle_dialog", "list_frames", "get_tab_dom", "eval_in_tab", "snapshot", "click", "type", "select", "press", "scroll", "hover", "handle_prompt", "screenshot", "pdf", "recover_tab"}, names)
	tab := openTab(t, cs, pages(t).URL)
	var v EvalInTabOutput
	ok(t, cs, "eval_in_tab", map[string]any{"tab": tab, "js": "() => document.title"}, &v)
	assert.Equal(t, "ok", v.Value)
	assert.Len(t, profiles(t, tmp), 1, "the browser's profile folder, while it runs")

	start := time.Now()
	closed := make(chan error, 1)
	go func() { closed <- cs.Close() }() // closes stdin, waits for the exit
	select {
	case err := <-closed:
		require.NoError(t, err)
		t.Logf("exited %v after stdin closed", time.Since(start))
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-closed
		t.Fatal("the server did not exit within 30s of stdin closing")
	}
	assert.True(t, cmd.ProcessState.Success(), "exit status %v", cmd.ProcessState)
	assert.Empty(t, profiles(t, tmp), "the profile folder is removed")
	requireSpans(t, col.got(), "/v1/traces", "tools/call eval_in_tab", "tabguard.Eval")
}

// SIGTERM and SIGINT stop the server cleanly: the browser is closed and its
// profile folder removed.
func TestStdioSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cs, cmd, tmp := server(t)
			openTab(t, cs, pages(t).URL)
			require.NoError(t, cmd.Process.Signal(sig))
			done := make(chan error, 1)
			go func() { done <- cs.Wait() }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatalf("still running 30s after %v", sig)
			}
			_ = cs.Close()
			assert.Empty(t, profiles(t, tmp), "the profile folder is removed")
		})
	}
}

// Over real stdio, a bad configuration ends the server before it starts a
// browser, with the reason on stderr and never the password.
func TestStdioBadConfig(t *testing.T) {
	const secret = "pw-never-logged-8812"
	creds := writeCredentials(t, agentprompt.CredentialEntry{Origin: "http://127.0.0.1:8080", Username: "agent", PasswordEnv: "TABGUARD_TEST_PW"},
		agentprompt.CredentialEntry{Origin: "http://127.0.0.1:8081", Username: "agent", PasswordEnv: "TABGUARD_TEST_MISSING"})
	cmd := exec.CommandContext(testContext(t, 60*time.Second), buildServer(t), "-credentials", creds)
	cmd.Env = append(os.Environ(), "TABGUARD_TEST_PW="+secret)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "output: %s", out)
	assert.Equal(t, 1, ee.ExitCode())
	assert.Contains(t, string(out), "entry 2: origin http://127.0.0.1:8081: environment variable TABGUARD_TEST_MISSING is not set")
	assert.NotContains(t, string(out), secret)
	assert.Equal(t, 1, strings.Count(string(out), "\n"), "one line: %s", out)
}
