package faultproxy

import (
	"bytes"
	"net"
	"time"
)

// linkQueue is how many chunks a delayed direction holds in flight before
// its reader waits: at 32 KB a chunk, far more than a DevTools connection
// sends in one delay.
const linkQueue = 256

// chunk is bytes read from one side and when to write them to the other.
type chunk struct {
	at time.Time
	b  []byte
}

// link is one direction of a connection with a fixed latency: a goroutine
// writes the queued chunks in the order they were read, each at its time,
// so a chunk never waits for the delay of the one before it.
type link struct {
	dst, src net.Conn
	delay    time.Duration
	queue    chan chunk
	done     chan struct{} // closed when the writer has returned
}

// startLink starts the writer of the direction from src to dst.
func startLink(dst, src net.Conn, delay time.Duration) *link {
	l := &link{dst: dst, src: src, delay: delay, queue: make(chan chunk, linkQueue), done: make(chan struct{})}
	go l.run()
	return l
}

// write queues a copy of b, since the reader reuses its buffer, to be
// written delay from now. It never fails: a failed write ends both sides,
// and the reader learns it from its next read.
func (l *link) write(b []byte) (int, error) {
	l.queue <- chunk{at: time.Now().Add(l.delay), b: bytes.Clone(b)}
	return len(b), nil
}

// close delivers the chunks still queued, each at its time, and waits for
// the writer.
func (l *link) close() {
	close(l.queue)
	<-l.done
}

func (l *link) run() {
	defer close(l.done)
	failed := false
	for c := range l.queue {
		if failed {
			continue // drain, so the reader never blocks on a dead link
		}
		time.Sleep(time.Until(c.at))
		if _, err := l.dst.Write(c.b); err != nil {
			failed = true
			// End the reader's side too, as an undelayed pipe does.
			_ = l.src.Close()
			_ = l.dst.Close()
		}
	}
}
