package otelguard_test

import (
	"context"
	"log"

	"github.com/go-rod/rod"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/otelguard"
)

// A program that has set up OpenTelemetry's SDK (its global providers)
// gets a span for every guarded call, a child of the span in the call's
// context, and the tabguard.* metrics.
func Example() {
	browser := rod.New().MustConnect()
	defer browser.MustClose()
	page := browser.MustPage("about:blank")

	w, err := tabguard.Watch(page, &tabguard.Options{Trace: otelguard.New()})
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Eval(context.Background(), `() => document.title`); err != nil {
		log.Print(err) // the span says why, in error.type: ErrTabCrashed, ErrEvalTimeout...
	}
}
