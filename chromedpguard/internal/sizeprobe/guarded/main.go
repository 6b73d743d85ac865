// Command guarded is a chromedp program that evaluates one function
// through chromedpguard (Watch, then Watcher.Eval). It is the guarded side
// of a binary-size comparison: its twin, plain, is the same program on
// chromedp alone, and scripts/bench reports how much larger this build is.
//
//	cd chromedpguard && go run ./internal/sizeprobe/guarded
package main

import (
	"context"
	"log"
	"strconv"

	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/chromedpguard/internal/sizeprobe"
)

func main() {
	err := sizeprobe.Run(func(tab context.Context) (int, error) {
		w, err := chromedpguard.Watch(tab, nil)
		if err != nil {
			return 0, err
		}
		defer w.Close()
		res, err := w.Eval(tab, `() => 1`)
		if err != nil {
			return 0, err
		}
		return strconv.Atoi(string(res.Value))
	})
	if err != nil {
		log.Fatal(err)
	}
}
