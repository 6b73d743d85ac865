package faultrows

import "strings"

// Headed is a headed browser the package's tests share: Chromium without
// --headless on an Xvfb display of its own, as a user's Chrome or a headed
// pool runs, where some prompts are drawn as native UI (docs/prompts.md).
// Its user has a home directory of its own.
const Headed Browser = IsolatedOwn + 1

// HeadedOwn is a headed browser of the row's own: the headed twin of a
// Dedicated row.
const HeadedOwn Browser = Headed + 1

// HeadedSuffix ends the name of a row's headed twin: "sign-in required
// (HTTP 401) (headed)".
const HeadedSuffix = " (headed)"

// IsHeaded reports whether the browser draws on a display.
func (b Browser) IsHeaded() bool { return b == Headed || b == HeadedOwn }

// Fault is the name of the fault a backend brings about for the row: its
// name, less HeadedSuffix for a headed twin, which runs its row's fault
// and recovery on a headed browser.
func (r Row) Fault() string {
	if r.Browser.IsHeaded() {
		return strings.TrimSuffix(r.Name, HeadedSuffix)
	}
	return r.Name
}

// withHeaded returns rows with, after each row marked AlsoHeaded, its
// headed twin: the same row, named with HeadedSuffix, in a headed browser
// (HeadedOwn for a row in a browser of its own).
func withHeaded(rows []Row) []Row {
	out := make([]Row, 0, len(rows))
	for _, r := range rows {
		out = append(out, r)
		if !r.AlsoHeaded {
			continue
		}
		h := r
		h.Name += HeadedSuffix
		h.AlsoHeaded = false
		h.Browser = Headed
		if r.Browser != Shared {
			h.Browser = HeadedOwn
		}
		out = append(out, h)
	}
	return out
}
