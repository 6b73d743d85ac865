package main

import (
	"bufio"
	"errors"
	"os"
	"strconv"
	"strings"
	"time"
)

// timeoutLogged is browserless's log line for a session whose TIMEOUT
// expired; it writes it just before it writes the 408 into the socket.
const timeoutLogged = "Job has hit timeout"

// loggedBefore returns the time of the last line of the pool's log that
// holds what and was written no later than t. browserless starts each line
// with its wall-clock time in milliseconds, as 2006-01-02T15:04:05.000Z.
func (p *pool) loggedBefore(what string, t time.Time) (time.Time, error) {
	f, err := os.Open(p.logPath)
	if err != nil {
		return time.Time{}, err
	}
	defer f.Close()
	var last time.Time
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		stamp, rest, ok := strings.Cut(sc.Text(), " ")
		if !ok || !strings.Contains(rest, what) {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, stamp)
		if err == nil && !at.After(t) {
			last = at
		}
	}
	if err := sc.Err(); err != nil {
		return time.Time{}, err
	}
	if last.IsZero() {
		return time.Time{}, errors.New("browserless logged no " + strconv.Quote(what) + " line before " + t.Format(time.RFC3339Nano))
	}
	return last, nil
}
