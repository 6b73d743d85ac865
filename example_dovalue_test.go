package tabguard_test

import (
	"context"
	"fmt"
	"time"

	"github.com/go-rod/rod"
	"github.com/tabguard/tabguard"
)

func ExampleDoValue() {
	page, done := exampleTab(`<title>Orders</title><ul><li>one</li><li>two</li></ul>`)
	defer done()
	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// rod's own calls, through the page DoValue gives, under Do's guard.
	items, err := tabguard.DoValue(ctx, w, func(p *rod.Page) ([]string, error) {
		els, err := p.Elements("li")
		if err != nil {
			return nil, err
		}
		var texts []string
		for _, el := range els {
			text, err := el.Text()
			if err != nil {
				return nil, err
			}
			texts = append(texts, text)
		}
		return texts, nil
	})
	fmt.Println(items, err)
	// Output: [one two] <nil>
}
