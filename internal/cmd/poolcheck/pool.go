package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// entry is browserless's server entry, relative to the folder it runs from.
const entry = "node_modules/@browserless.io/browserless/build/index.js"

// poolEnv says where browserless is installed and where its pools keep
// their files.
type poolEnv struct {
	app, browsers, routes, tmp, node string
}

func (e poolEnv) check() error {
	for _, f := range []struct{ flag, dir string }{
		{"-app", e.app}, {"-browsers", e.browsers}, {"-routes", e.routes}, {"-tmp", e.tmp},
	} {
		if f.dir == "" {
			return fmt.Errorf("%s is required", f.flag)
		}
		if _, err := os.Stat(f.dir); err != nil {
			return fmt.Errorf("%s: %w", f.flag, err)
		}
	}
	if _, err := os.Stat(filepath.Join(e.app, entry)); err != nil {
		return fmt.Errorf("-app: no browserless in it: %w", err)
	}
	return nil
}

// poolConfig is what a row asks of browserless.
type poolConfig struct {
	timeout            time.Duration // TIMEOUT: how long a session may last
	concurrent, queued int           // CONCURRENT and QUEUED
	name               string        // tells apart pools of the same setting
}

// pool is one browserless process and the Chromium processes it started.
type pool struct {
	cfg     poolConfig
	url     string // ws://127.0.0.1:PORT/chromium?token=TOKEN
	base    string // http://127.0.0.1:PORT
	token   string
	dataDir string // DATA_DIR: every Chromium's user-data-dir lies under it
	logPath string
	cmd     *exec.Cmd
	exited  chan struct{} // closed once the process is reaped
}

// startPool starts browserless with cfg and returns once it answers HTTP,
// within ctx. The caller should call stop when finished.
func startPool(ctx context.Context, env poolEnv, n int, cfg poolConfig) (*pool, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(env.tmp, "pool-"+strconv.Itoa(n))
	p := &pool{cfg: cfg, token: randomToken(), dataDir: filepath.Join(dir, "data"),
		logPath: filepath.Join(dir, "browserless.log"), exited: make(chan struct{})}
	if err := os.MkdirAll(p.dataDir, 0o700); err != nil {
		return nil, err
	}
	p.base = "http://127.0.0.1:" + strconv.Itoa(port)
	p.url = "ws://127.0.0.1:" + strconv.Itoa(port) + "/chromium?token=" + p.token
	log, err := os.Create(p.logPath)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	// The entry goes by its path under app, a folder of this run, so
	// scripts/test-pool finds the process by that path if this one dies.
	p.cmd = exec.Command(env.node, filepath.Join(env.app, entry))
	p.cmd.Dir = env.app
	p.cmd.Stdout, p.cmd.Stderr = log, log
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p.cmd.Env = append(os.Environ(),
		"HOST=127.0.0.1", "PORT="+strconv.Itoa(port), "TOKEN="+p.token,
		"TIMEOUT="+strconv.FormatInt(cfg.timeout.Milliseconds(), 10),
		"CONCURRENT="+strconv.Itoa(cfg.concurrent), "QUEUED="+strconv.Itoa(cfg.queued),
		"PLAYWRIGHT_BROWSERS_PATH="+env.browsers, "ROUTES="+env.routes,
		"DATA_DIR="+p.dataDir, "DOWNLOAD_DIR="+filepath.Join(dir, "downloads"),
		"METRICS_JSON_PATH="+filepath.Join(dir, "metrics.json"),
		"DEBUG=browserless*,-**:verbose,-**:trace",
	)
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start browserless: %w", err)
	}
	go func() {
		_ = p.cmd.Wait()
		close(p.exited)
	}()
	if err := p.ready(ctx); err != nil {
		p.stop()
		return nil, fmt.Errorf("browserless did not start (log %s): %w", p.logPath, err)
	}
	return p, nil
}

// ready waits until browserless answers its /meta route.
func (p *pool) ready(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.base+"/meta?token="+p.token, nil)
		if err != nil {
			return err
		}
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-p.exited:
			return errors.New("the process exited")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// kill ends browserless with SIGKILL, then every Chromium it started, and
// returns when the process is reaped.
func (p *pool) kill() {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
	}
	reap(p.dataDir)
}

// stop asks browserless to end (SIGTERM), gives it two seconds to close
// its browsers, then kills it and whatever it left behind.
func (p *pool) stop() {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(2 * time.Second):
	}
	p.kill()
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func randomToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// pressure is what browserless's /pressure route says of its sessions.
type pressure struct {
	Running, Queued int
}

// pressure asks browserless how many sessions run and how many wait.
func (p *pool) pressure(ctx context.Context) (pressure, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.base+"/pressure?token="+p.token, nil)
	if err != nil {
		return pressure{}, err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return pressure{}, fmt.Errorf("GET /pressure: %w", err)
	}
	defer res.Body.Close()
	var body struct{ Pressure pressure }
	if res.StatusCode != http.StatusOK {
		return pressure{}, fmt.Errorf("GET /pressure: %s", res.Status)
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		return pressure{}, fmt.Errorf("GET /pressure: %w", err)
	}
	return body.Pressure, nil
}

// drained waits until browserless runs and queues no session, within ctx.
func (p *pool) drained(ctx context.Context) error {
	for {
		pr, err := p.pressure(ctx)
		if err != nil {
			return err
		}
		if pr.Running == 0 && pr.Queued == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the pool still runs %d and queues %d: %w", pr.Running, pr.Queued, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
