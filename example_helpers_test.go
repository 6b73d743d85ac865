package tabguard_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard"
)

func ExampleWatcher_Frames() {
	page, done := exampleTab(`<title>outer</title><iframe srcdoc="<p>inner</p>"></iframe>`)
	defer done()
	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()

	// From the events: no call to the page.
	for _, f := range w.Frames() {
		fmt.Println(f.URL, f.ParentID == string(w.TargetID()), f.Loading, f.Refusal)
	}
	// Output: about:srcdoc true false <nil>
}

func ExampleWatcher_Screenshot() {
	page, done := exampleTab(`<title>Orders</title><p>3 open</p>`)
	defer done()
	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	png, err := w.Screenshot(ctx, false, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(bytes.HasPrefix(png, []byte("\x89PNG")))

	// A crashed tab is refused at once, not waited on.
	crashTab(page)
	_, err = w.Screenshot(ctx, false, nil)
	fmt.Println(errors.Is(err, tabguard.ErrTabCrashed))
	// Output:
	// true
	// true
}

func ExampleWatcher_Cookies() {
	page, done := exampleTab(`<title>Shop</title><script>document.cookie = "cart=3"</script>`)
	defer done()
	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// The browser process keeps the cookies: they answer on a crashed tab.
	crashTab(page)
	cookies, err := w.Cookies(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range cookies {
		fmt.Println(c.Name, c.Value)
	}
	// Output: cart 3
}

func ExampleWatcher_DoBrowserSide() {
	page, done := exampleTab(`<title>Report</title>`)
	defer done()
	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// A crashed tab refuses Do, but the browser side still answers.
	crashTab(page)
	err = w.DoBrowserSide(ctx, func(p *rod.Page) error {
		info, err := proto.TargetGetTargetInfo{TargetID: p.TargetID}.Call(p)
		if err == nil {
			fmt.Println(info.TargetInfo.Type, info.TargetInfo.Title)
		}
		return err
	})
	fmt.Println(err)
	// Output:
	// page Report
	// <nil>
}
