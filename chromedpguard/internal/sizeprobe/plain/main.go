// Command plain is a chromedp program that evaluates one expression with
// chromedp alone. It is the baseline of a binary-size comparison: its twin,
// guarded, is the same program evaluating through chromedpguard, and
// scripts/bench reports how much larger that build is.
//
//	cd chromedpguard && go run ./internal/sizeprobe/plain
package main

import (
	"context"
	"log"

	"github.com/chromedp/chromedp"
	"github.com/tabguard/tabguard/chromedpguard/internal/sizeprobe"
)

func main() {
	err := sizeprobe.Run(func(tab context.Context) (int, error) {
		return chromedp.Run(tab, chromedp.Evaluate[int](`(() => 1)()`))
	})
	if err != nil {
		log.Fatal(err)
	}
}
