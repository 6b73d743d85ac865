package tracerec

import (
	"testing"
	"time"

	"github.com/tabguard/tabguard/tabtrace"
)

// Resumes follows a watcher's connection through its Trace: the detail
// of each drop, and of each resume.
type Resumes struct {
	Dropped, Resumed chan string
}

// NewResumes returns Resumes and the Trace that feeds it.
func NewResumes() (*Resumes, *tabtrace.Trace) {
	r := &Resumes{Dropped: make(chan string, 100), Resumed: make(chan string, 100)}
	return r, &tabtrace.Trace{TabChanged: func(c tabtrace.Change) {
		switch c.Kind {
		case tabtrace.ConnectionDropped:
			r.Dropped <- c.Detail
		case tabtrace.ConnectionResumed:
			r.Resumed <- c.Detail
		}
	}}
}

// Wait returns the next detail of ch (Dropped or Resumed), failing t when
// none comes within 30 s.
func (r *Resumes) Wait(t testing.TB, ch chan string, what string) string {
	t.Helper()
	select {
	case d := <-ch:
		return d
	case <-time.After(30 * time.Second):
		t.Fatalf("no %s within 30s", what)
		return ""
	}
}
