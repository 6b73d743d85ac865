package tabguard_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tabguard/tabguard"
)

func ExampleWatcher_Snapshot() {
	page, done := exampleTab(`<title>Shop</title><h1>Cart</h1>
<label>Coupon <input value="SPRING"></label>
<button disabled>Buy now</button>
<iframe srcdoc="<a href='/help'>Help</a>"></iframe>
<div hidden><button>Not shown</button></div>`)
	defer done()
	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	s, err := w.Snapshot(ctx, tabguard.SnapshotOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	// One line an element: its ref, role, name, value and state. The
	// iframe's refs name it: f1.
	fmt.Print(s)
	// Output:
	// e1 heading "Cart"
	// e2 textbox "Coupon" value="SPRING"
	// e3 button "Buy now" [disabled]
	// f1e4 link "Help"
}

// A long page is read in windows: each snapshot says where the next one
// starts, and the windows join exactly.
func ExampleSnapshotOptions() {
	page, done := exampleTab(`<title>List</title><ul>` + strings.Repeat(`<li><a href="/item">Item</a>`, 1200) + `</ul>`)
	defer done()
	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	opts := tabguard.SnapshotOptions{MaxElements: 500}
	for {
		s, err := w.Snapshot(ctx, opts)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(s.Elements[0].Ref, "to", s.Elements[s.Shown-1].Ref, "|", s.Notice())
		if s.NextOffset == 0 {
			break
		}
		opts.Offset = s.NextOffset
	}
	// Output:
	// e1 to e500 | showing 500 of 1200 elements: read on with Offset 500
	// e501 to e1000 | showing 500 of 1200 elements from Offset 500: read on with Offset 1000
	// e1001 to e1200 |
}

func ExampleSnapshotElement() {
	e := tabguard.SnapshotElement{Ref: "f1e7", Role: "checkbox", Name: "Keep me signed in", Checked: "false", Offscreen: true}
	fmt.Println(e)
	// Output: f1e7 checkbox "Keep me signed in" [checked=false] [offscreen]
}

func ExampleSkippedFrame() {
	s := tabguard.Snapshot{
		Elements: []tabguard.SnapshotElement{{Ref: "e1", Role: "button", Name: "Pay"}},
		Shown:    1, Total: 1,
		Skipped: []tabguard.SkippedFrame{{ID: "F00D", URL: "https://pay.example/widget", Reason: "frame crashed"}},
	}
	fmt.Print(s)
	// Output:
	// e1 button "Pay"
	// frame F00D (https://pay.example/widget) left out: frame crashed
}
