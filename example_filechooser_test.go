package tabguard_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard"
)

func ExampleFileChooser() {
	page, done := exampleTab(`<input type=file>
<script>document.querySelector("input").onchange = e => document.title = e.target.files[0].name</script>`)
	defer done()
	dir, err := os.MkdirTemp("", "upload")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	report := filepath.Join(dir, "report.txt")
	if err := os.WriteFile(report, []byte("q3"), 0o600); err != nil {
		fmt.Println(err)
		return
	}
	w, err := tabguard.Watch(page, &tabguard.Options{
		FileChooser: func(ctx context.Context, c tabguard.FileChooser) ([]string, error) {
			return []string{report}, nil // an absolute path
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	ctx := context.Background()
	err = w.Do(ctx, func(p *rod.Page) error { // a click, as a user's: it opens the chooser
		input, err := p.Element("input")
		if err != nil {
			return err
		}
		return input.Click(proto.InputMouseButtonLeft, 1)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	title, err := w.Eval(ctx, `() => new Promise(done => { const check = () => document.title ? done(document.title) : setTimeout(check, 5); check() })`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(title.Value.Str())
	// Output: report.txt
}
