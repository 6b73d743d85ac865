package tabguard_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tabguard/tabguard"
)

func ExampleWatcher_EvalFrame() {
	page, done := exampleTab(`<title>outer</title><iframe id=f srcdoc="<title>inner</title><p>signed in</p>"></iframe>`)
	defer done()
	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	frames := w.Frames()
	for _, f := range frames {
		fmt.Println(f.URL, f.OutOfProcess, f.Refusal)
	}
	res, err := w.EvalFrame(ctx, frames[0].ID, `(sel) => document.title + ": " + document.querySelector(sel).textContent`, "p")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Value.Str())

	// The iframe goes: a call in it says so, and the tab answers.
	if _, err := w.Eval(ctx, `() => document.getElementById("f").remove()`); err != nil {
		fmt.Println(err)
		return
	}
	_, err = w.EvalFrame(ctx, frames[0].ID, `() => document.title`)
	fmt.Println(errors.Is(err, tabguard.ErrFrameDetached), len(w.Frames()))
	// Output:
	// about:srcdoc false <nil>
	// inner: signed in
	// true 0
}
