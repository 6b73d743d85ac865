package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// pools starts browserless once for each setting the rows ask for, the
// first time a row asks, and stops them all at the end.
type pools struct {
	env     poolEnv
	started []*pool
}

// get returns the pool running with cfg, starting it if none does.
func (ps *pools) get(ctx context.Context, cfg poolConfig) (*pool, error) {
	for _, p := range ps.started {
		if p.cfg == cfg {
			return p, nil
		}
	}
	n := len(ps.started) + 1
	fmt.Fprintf(os.Stderr, "poolcheck: starting browserless %d (TIMEOUT=%d CONCURRENT=%d QUEUED=%d)\n",
		n, cfg.timeout.Milliseconds(), cfg.concurrent, cfg.queued)
	p, err := startPool(ctx, ps.env, n, cfg)
	if err != nil {
		return nil, err
	}
	ps.started = append(ps.started, p)
	return p, nil
}

// stop stops every pool started.
func (ps *pools) stop() {
	for _, p := range ps.started {
		p.stop()
	}
}

// rowSet is the rows to run, by their 1-based number; empty means all.
type rowSet map[int]bool

// parseRows reads a comma-separated list such as "1,4".
func parseRows(s string) (rowSet, error) {
	set := rowSet{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-rows: %q is not a row number", f)
		}
		set[n] = true
	}
	return set, nil
}

func (s rowSet) has(n int) bool { return len(s) == 0 || s[n] }
