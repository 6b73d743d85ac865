package chromedp015guard

import "context"

// execute sends method on the session. chromedp's Execute takes easyjson
// values up to v0.12 and any value since: *value is both, and an absent
// params or result is passed as an untyped nil, never as a typed one,
// which chromedp would encode.
func (s session) execute(ctx context.Context, method string, p, r *value) error {
	send := s.b.Execute
	if s.t != nil {
		send = s.t.Execute
	}
	switch {
	case p == nil && r == nil:
		return send(ctx, method, nil, nil)
	case p == nil:
		return send(ctx, method, nil, r)
	case r == nil:
		return send(ctx, method, p, nil)
	}
	return send(ctx, method, p, r)
}
