package tabguard_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tabguard/tabguard"
)

func ExampleWatcher_Console() {
	page, done := exampleTab(`<title>Cart</title><script>
		console.log("cart loaded:", 3, "items");
		console.warn("coupon %s expired", "SPRING");
		throw new Error("checkout widget failed");
	</script>`)
	defer done()
	// Options.Console enables the Runtime domain: what the page logged
	// before Watch comes too.
	w, err := tabguard.Watch(page, &tabguard.Options{Console: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()

	for _, m := range w.Console().Messages {
		first, _, _ := strings.Cut(m.Text, "\n") // an exception's stack follows
		fmt.Printf("%s, line %d: %s\n", m.Type, m.Line, first)
	}
	// Output:
	// log, line 2: cart loaded: 3 items
	// warning, line 3: coupon SPRING expired
	// exception, line 4: Uncaught Error: checkout widget failed
}

func ExampleConsoleMessage() {
	page, done := exampleTab(`<title>Report</title>`)
	defer done()
	w, err := tabguard.Watch(page, &tabguard.Options{Console: true, EvalTimeout: 2 * time.Second, TerminateOnTimeout: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// The page says what it is about to do, then a script holds it.
	_, err = w.Eval(ctx, `() => {
		console.log("rendering", 5000, "rows");
		setTimeout(() => { while (true) {} });
	}`)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = w.Eval(ctx, `() => document.title`)
	var te *tabguard.TimeoutError
	if errors.As(err, &te) {
		// The error's text stays one line; its last console lines are
		// for the program, or the agent, to show.
		for _, m := range te.Console {
			fmt.Printf("%s: %s\n", m.Type, m.Text)
		}
	}
	// Output: log: rendering 5000 rows
}

func ExampleConsoleLog() {
	page, done := exampleTab(`<title>Chatty</title><script>
		for (let i = 1; i <= 250; i++) console.log("tick", i);
	</script>`)
	defer done()
	w, err := tabguard.Watch(page, &tabguard.Options{Console: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()

	// A tab keeps its last 200 messages; it counts the ones it let go.
	log := w.Console()
	fmt.Println(len(log.Messages), log.Dropped, log.Messages[0].Text)
	// Output: 200 50 tick 51
}
