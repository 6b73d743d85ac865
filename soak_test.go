package tabguard_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// Soak shape: soakTabs tabs, soakEvals evals in all from two goroutines per
// tab, while crashes, dialogs and reloads are injected at random.
const (
	soakTabs    = 8
	soakEvals   = 400
	soakTimeout = 800 * time.Millisecond
	// soakSlack is slack past each call's timeout for a 2-core machine
	// that also runs other browsers: under chaos a timed-out eval may wait
	// up to 100 ms for Chrome to confirm a terminate, and a starved
	// scheduler adds more. A call later than that counts as late, and one
	// that has not returned 5 s past its timeout counts as hung. The matrix
	// holds single faults to the tighter timeout plus 250 ms.
	soakSlack = 2 * time.Second
)

// soakSentinels are the answers a call may give besides a result.
var soakSentinels = []error{
	tabguard.ErrEvalTimeout, tabguard.ErrTabCrashed, tabguard.ErrDialogOpen,
	tabguard.ErrNavigated, tabguard.ErrNoDocument, tabguard.ErrTerminated,
}

// soakSeed is $TABGUARD_SOAK_SEED, to replay a run, or a fresh seed.
func soakSeed(t *testing.T) uint64 {
	if s := os.Getenv("TABGUARD_SOAK_SEED"); s != "" {
		seed, err := strconv.ParseUint(s, 10, 64)
		require.NoError(t, err, "TABGUARD_SOAK_SEED")
		return seed
	}
	return uint64(time.Now().UnixNano())
}

type soakTab struct {
	page *rod.Page
	w    *tabguard.Watcher
}

// bounded runs a CDP call on the tab that may get no answer (a crashed or
// stalled tab), under a short context of its own.
func (s soakTab) bounded(t *testing.T, call func(p *rod.Page) error) {
	ctx, cancel := context.WithTimeout(testbrowser.Context(t, time.Minute), time.Second)
	defer cancel()
	_ = call(s.page.Context(ctx))
}

func TestSoak(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("soak: skipped in -short mode")
	}
	seed := soakSeed(t)
	fmt.Printf("soak: seed %d (set TABGUARD_SOAK_SEED=%d to replay)\n", seed, seed)
	b := dedicated(t)
	srv := serve(t)
	tabs := make([]soakTab, soakTabs)
	for i := range tabs {
		page := testbrowser.NewPage(t, b)
		require.NoError(t, navigate(t, page, srv.URL))
		tabs[i] = soakTab{page, watch(t, page, &tabguard.Options{EvalTimeout: soakTimeout, TerminateOnTimeout: true})}
	}

	var answered, late, hung, worst atomic.Int64
	var mu sync.Mutex
	kinds := map[string]int{}
	var wrong []error
	record := func(err error, elapsed time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		kind := "result"
		if err != nil {
			kind = "other"
			for _, s := range soakSentinels {
				if errors.Is(err, s) {
					kind = s.Error()
					break
				}
			}
			if kind == "other" {
				wrong = append(wrong, err)
			}
		}
		kinds[kind]++
		if over := int64(elapsed - soakTimeout); over > worst.Load() {
			worst.Store(over)
		}
		if elapsed > soakTimeout+soakSlack {
			late.Add(1)
			t.Errorf("late: answered after %v: %v", elapsed, err)
		} else {
			answered.Add(1)
		}
	}

	stop := make(chan struct{})
	var injectors sync.WaitGroup
	injectors.Add(1)
	go func() {
		defer injectors.Done()
		inject(t, tabs, rand.New(rand.NewPCG(seed, 1)), stop, &injectors)
	}()

	scripts := []string{
		`() => 1`,
		`() => document.title`,
		`() => new Promise(r => setTimeout(() => r(2), 50))`,
		`() => new Promise(() => {})`,
		`() => { const end = Date.now() + 2000; while (Date.now() < end) {} }`,
	}
	var callers sync.WaitGroup
	for g := range 2 * soakTabs {
		callers.Add(1)
		go func() {
			defer callers.Done()
			tab := tabs[g%soakTabs]
			rng := rand.New(rand.NewPCG(seed, uint64(g)+2))
			for range soakEvals / (2 * soakTabs) {
				js := scripts[rng.IntN(3)]
				if rng.IntN(20) == 0 {
					js = scripts[3+rng.IntN(2)]
				}
				done := make(chan error, 1)
				start := time.Now()
				go func() {
					_, err := tab.w.Eval(testbrowser.Context(t, time.Minute), js)
					done <- err
				}()
				select {
				case err := <-done:
					record(err, time.Since(start))
					if err != nil && !isSentinel(err) {
						t.Logf("unexpected answer to %s after %v: %#v, state %+v", js, time.Since(start), err, tab.w.State())
					}
					heal(t, tab, err)
				case <-time.After(soakTimeout + 5*time.Second):
					hung.Add(1)
					t.Errorf("hung: %s on tab %d still running after %v", js, g%soakTabs, time.Since(start))
				}
			}
		}()
	}
	callers.Wait()
	close(stop)
	injectors.Wait()

	mu.Lock()
	defer mu.Unlock()
	t.Logf("soak outcomes: %v; latest answer %v past its timeout", kinds, time.Duration(worst.Load()).Round(time.Millisecond))
	fmt.Printf("soak: %d/%d answered in time, %d hung\n", answered.Load(), soakEvals, hung.Load())
	assert.Empty(t, wrong, "answers that are neither a result nor a package sentinel")
	assert.Zero(t, hung.Load(), "hung calls")
	assert.Zero(t, late.Load(), "late calls")
	assert.Equal(t, int64(soakEvals), answered.Load()+late.Load()+hung.Load())
}

// heal makes a tab usable again after a fault reached a caller, as a
// program using tabguard would.
func heal(t *testing.T, tab soakTab, err error) {
	switch {
	case errors.Is(err, tabguard.ErrTabCrashed):
		tab.bounded(t, func(p *rod.Page) error { return proto.PageReload{}.Call(p) })
	case errors.Is(err, tabguard.ErrDialogOpen):
		tab.bounded(t, func(p *rod.Page) error { return proto.PageHandleJavaScriptDialog{Accept: true}.Call(p) })
	default:
		return
	}
	// Give the tab up to a second to come back, as a caller would, rather
	// than spend the run on refusals.
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if tab.w.Blocked(testbrowser.Context(t, time.Minute)) == nil {
			return
		}
	}
}

// inject crashes, opens a dialog on or reloads a random tab every 20 to 80
// ms until stop is closed. Each fault runs on its own goroutine, since a
// crashed or stalled tab may not answer the call that injects it.
func inject(t *testing.T, tabs []soakTab, rng *rand.Rand, stop <-chan struct{}, wg *sync.WaitGroup) {
	faults := []func(p *rod.Page) error{
		func(p *rod.Page) error { return proto.PageCrash{}.Call(p) },
		func(p *rod.Page) error {
			_, err := proto.RuntimeEvaluate{Expression: `setTimeout(() => alert("soak"), 0)`}.Call(p)
			return err
		},
		func(p *rod.Page) error { return proto.PageReload{}.Call(p) },
	}
	for {
		select {
		case <-stop:
			return
		case <-time.After(time.Duration(20+rng.IntN(60)) * time.Millisecond):
		}
		// One fault in five is a crash, which takes a tab out until a
		// caller reloads it; dialogs and reloads share the rest.
		fault := faults[0]
		if n := rng.IntN(5); n > 0 {
			fault = faults[1+n%2]
		}
		tab := tabs[rng.IntN(len(tabs))]
		wg.Add(1)
		go func() {
			defer wg.Done()
			tab.bounded(t, fault)
		}()
	}
}

func isSentinel(err error) bool {
	for _, s := range soakSentinels {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}
