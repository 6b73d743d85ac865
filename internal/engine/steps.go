package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"

	"github.com/tabguard/tabguard/tabstate"
)

// Steps says where a guarded call of several steps is, for its timeout or
// a refusal that cuts it short to name: the action of a chromedp task
// list that is running (At), or the last CDP method a rod call sent
// (Sent). A backend carries it in the call's context (WithSteps) and sets
// it as the call moves on; a call without one names no step. Its methods
// are safe for concurrent use: a program's fn may send from goroutines of
// its own.
type Steps struct {
	mu   sync.Mutex
	at   string
	sent string
}

// At records the step the call is at now, such as
// "action 4 of 6, *page.PrintToPDFParams" (StepName).
func (s *Steps) At(step string) {
	s.mu.Lock()
	s.at = step
	s.mu.Unlock()
}

// Sent records the CDP method the call sent last. It costs a lock and no
// allocation: a rod call sends it for every command.
func (s *Steps) Sent(method string) {
	s.mu.Lock()
	s.sent = method
	s.mu.Unlock()
}

// String is the step as an error names it, or empty.
func (s *Steps) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.sent == "":
		return s.at
	case s.at == "":
		return "last sent " + s.sent
	}
	return s.at + ", last sent " + s.sent
}

type stepsKey struct{}

// WithSteps returns ctx carrying s, for the guard and the backend's sender
// to find with StepsOf.
func WithSteps(ctx context.Context, s *Steps) context.Context {
	return context.WithValue(ctx, stepsKey{}, s)
}

// StepsOf returns the Steps ctx carries, or nil.
func StepsOf(ctx context.Context) *Steps {
	s, _ := ctx.Value(stepsKey{}).(*Steps)
	return s
}

// StepName names action i (from 0) of a list of n, by its Go type, or, for
// a func, by the func that made it (chromedp.ActionFunc and chromedp
// v0.23's actions are funcs): "action 4 of 6, *page.PrintToPDFParams",
// "action 2 of 3, chromedp.Evaluate".
func StepName(i, n int, action any) string {
	return fmt.Sprintf("action %d of %d, %s", i+1, n, typeName(action))
}

// typeName is v's type, or for a func, the name of the func that made it
// and the package whose source holds it: "chromedp.Evaluate" for the
// closure that chromedp.Evaluate returns, whether or not the compiler
// inlined chromedp.Evaluate into its caller (which renames the closure
// after the caller: "main.main.Evaluate.func1").
func typeName(v any) string {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Func || rv.IsNil() {
		return fmt.Sprintf("%T", v)
	}
	f := runtime.FuncForPC(rv.Pointer())
	if f == nil {
		return fmt.Sprintf("%T", v)
	}
	name := f.Name()
	name = name[strings.LastIndexByte(name, '/')+1:]
	if i := strings.IndexByte(name, '['); i >= 0 {
		name = name[:i] + name[strings.LastIndexByte(name, ']')+1:]
	}
	parts := strings.Split(strings.TrimSuffix(name, "-fm"), ".")
	for len(parts) > 1 && closure(parts[len(parts)-1]) {
		parts = parts[:len(parts)-1]
	}
	file, _ := f.FileLine(rv.Pointer())
	pkg, _, _ := strings.Cut(filepath.Base(filepath.Dir(file)), "@") // ".../chromedp@v0.23.1/nav.go"
	if pkg == "" || pkg == "." {
		pkg = parts[0]
	}
	return pkg + "." + parts[len(parts)-1]
}

// closure reports whether part is a name Go gives a closure: "func1", or
// the "1" of a closure within one.
func closure(part string) bool {
	digits := strings.TrimPrefix(part, "func")
	return digits != "" && strings.Trim(digits, "0123456789") == ""
}

// withStep gives err, the answer of a guarded call that ran, the step the
// call was at (Steps in ctx): a timeout, or a refusal that cut it short.
func withStep(ctx context.Context, err error) error {
	s := StepsOf(ctx)
	if s == nil || err == nil {
		return err
	}
	step := s.String()
	if step == "" {
		return err
	}
	switch e := err.(type) {
	case *tabstate.TimeoutError:
		if e.Step == "" {
			e.Step = step
		}
	case *tabstate.BlockedError:
		if e.Step == "" {
			c := *e // it may be the state's own
			c.Step = step
			return &c
		}
	}
	return err
}
