package tabguard

import (
	"context"

	"github.com/go-rod/rod"
)

// DoValue is [Watcher.Do] for a call that answers a value: it runs fn
// under the guard Do gives, with the page Do gives, and returns what fn
// returns, so a program needs no variable outside fn to carry it:
//
//	title, err := tabguard.DoValue(ctx, w, func(p *rod.Page) (string, error) {
//		info, err := p.Info()
//		if err != nil {
//			return "", err
//		}
//		return info.Title, nil
//	})
//
// It answers Do's errors, with T's zero value: a call cut short is never a
// success, whatever fn returned.
func DoValue[T any](ctx context.Context, w *Watcher, fn func(page *rod.Page) (T, error)) (T, error) {
	var (
		v  T
		do func(*rod.Page) error // nil when fn is, for Do's answer to a nil func
	)
	if fn != nil {
		do = func(p *rod.Page) error {
			var err error
			v, err = fn(p)
			return err
		}
	}
	if err := w.Do(ctx, do); err != nil {
		var zero T
		return zero, err
	}
	return v, nil
}
