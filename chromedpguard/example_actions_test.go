package chromedpguard_test

import (
	"errors"
	"fmt"

	"github.com/tabguard/tabguard/chromedpguard"
)

// An action acts by a ref from a snapshot; an element another covers is
// refused with the reason first, and the press that would have reached
// the banner is never sent.
func ExampleWatcher_Act() {
	w, ctx, done := exampleWatch(`<title>Shop</title><button id="buy" style="position:absolute;left:0;top:0;width:100px;height:40px">Buy now</button>
<div id="cookie-banner" style="position:fixed;inset:0;background:#eee">We use cookies <button>Accept</button></div>`, nil)
	defer done()

	s, err := w.Snapshot(ctx, chromedpguard.SnapshotOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(s)
	_, err = w.Act(ctx, chromedpguard.Action{Kind: chromedpguard.ActionClick, Ref: s.Elements[0].Ref, NoWait: true})
	fmt.Println(errors.Is(err, chromedpguard.ErrNotActionable))
	fmt.Println(err)

	acted, err := w.Act(ctx, chromedpguard.Action{Kind: chromedpguard.ActionClick, Ref: s.Elements[1].Ref})
	fmt.Println(acted.Element, err)
	// Output:
	// e1 button "Buy now"
	// e2 button "Accept"
	// true
	// covered by <div id="cookie-banner"> at (50,20): click on <button id="buy"> not done: dismiss what covers it first (act on it, or on its close button), or act on what covers it
	// <button> <nil>
}

// Click clicks what a selector finds, and says what the click set off.
func ExampleWatcher_Click() {
	w, ctx, done := exampleWatch(`<title>Shop</title><button onclick="alert('Added to the cart')">Add</button>`, nil)
	defer done()

	acted, err := w.Click(ctx, "button")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(acted)
	// The dialog refuses the tab's calls until it is answered.
	fmt.Println(w.HandleDialog(ctx, true, ""))
	// Output:
	// click on <button>, opened alert dialog "Added to the cart"
	// <nil>
}

// Fill types into a field in place of what it holds, and reads the value
// back; a read-only field is refused.
func ExampleWatcher_Fill() {
	w, ctx, done := exampleWatch(`<title>Form</title><input id="q" value="old"><input id="ro" readonly value="fixed">`, nil)
	defer done()

	acted, err := w.Fill(ctx, "#q", "tabguard")
	fmt.Println(acted.Value, err)
	_, err = w.Act(ctx, chromedpguard.Action{Kind: chromedpguard.ActionFill, Selector: "#ro", Text: "x", NoWait: true})
	fmt.Println(err)
	// Output:
	// tabguard <nil>
	// read-only: fill on <input id="ro"> not done: fill an editable field: this one takes no typing
}

// Press presses a key on the element that has the focus.
func ExampleWatcher_Press() {
	w, ctx, done := exampleWatch(`<title>Search</title><form onsubmit="document.title = 'sent: ' + this.q.value; return false"><input name="q"></form>`, nil)
	defer done()

	if _, err := w.Fill(ctx, "input", "chromedp"); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := w.Press(ctx, "Enter"); err != nil {
		fmt.Println(err)
		return
	}
	title, err := w.Eval(ctx, `() => document.title`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(title.Value))
	// Output: "sent: chromedp"
}

func ExampleWatcher_Snapshot() {
	w, ctx, done := exampleWatch(`<title>Shop</title><h1>Cart</h1>
<label>Coupon <input value="SPRING"></label>
<button disabled>Buy now</button>
<iframe srcdoc="<a href='/help'>Help</a>"></iframe>
<div hidden><button>Not shown</button></div>`, nil)
	defer done()

	s, err := w.Snapshot(ctx, chromedpguard.SnapshotOptions{})
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
