package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
)

// sample parses testdata/bench.txt, the output of a full benchmark run.
func sample(t *testing.T) *results {
	t.Helper()
	f, err := os.Open("testdata/bench.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestFigurePoints holds each figure's series to the points the sample
// run measured: every setting of each series, none lost, none invented.
func TestFigurePoints(t *testing.T) {
	want := map[string]map[string]int{
		"tabs-cpu.svg": {"rod alone": 3, "watched by one BrowserWatcher": 1},
		"crash-answer.svg": {
			"Watcher.Eval answers ErrTabCrashed, after Page.crash": 3,
			"Chrome's crash report, after Page.crash":              2,
			"Watcher.Eval's answer, after Chrome's report":         2,
			"rod eval with a 5 s deadline answers":                 1,
		},
		"recovery.svg":           {"Watcher.Eval": 5, "rod page.Eval": 5},
		"truncatedom.svg":        {"TruncateDOM": 3},
		"many-tabs-crashing.svg": {"Watcher tabs": 4, "rod control tabs": 4},
		"slow-link-start.svg": {
			"WatchBrowser": 5, "bw.Watch": 5, "first Watcher.Eval": 5,
			"rod connect": 5, "rod open": 5, "rod's first page.Eval": 5,
		},
	}
	res := sample(t)
	got := map[string]map[string]int{}
	for _, f := range figures {
		c := f.chart(res)
		got[f.file] = map[string]int{}
		for _, s := range c.series {
			got[f.file][s.name] = len(s.pts)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("points a series = %v; want %v", got, want)
	}
}

// TestFigureSVG draws every figure of the sample run twice: the same bytes
// each time, a well-formed SVG document, with its title and every series
// named in its text.
func TestFigureSVG(t *testing.T) {
	res := sample(t)
	for _, f := range figures {
		t.Run(f.file, func(t *testing.T) {
			c := f.chart(res)
			first, err := c.svg()
			if err != nil {
				t.Fatal(err)
			}
			c2 := f.chart(res)
			again, err := c2.svg()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(first, again) {
				t.Error("two drawings of the same figures differ")
			}
			root, texts, err := svgTexts(first)
			if err != nil {
				t.Fatalf("not well-formed XML: %v", err)
			}
			if root != "svg" {
				t.Errorf("root element = %q; want svg", root)
			}
			for _, name := range append([]string{c.title}, seriesNames(c)...) {
				if !texts[name] {
					t.Errorf("no text %q in the SVG", name)
				}
			}
		})
	}
}

// TestFigureNoResult holds that a run without a benchmark gives its figure
// no point, so that no plot is drawn for it.
func TestFigureNoResult(t *testing.T) {
	res, err := parse(strings.NewReader("PASS\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figures {
		if c := f.chart(res); !c.empty() {
			t.Errorf("%s: a run without results gives points", f.file)
		}
	}
}

func seriesNames(c chart) []string {
	var names []string
	for _, s := range c.series {
		names = append(names, s.name)
	}
	return names
}

// svgTexts decodes an SVG document to its end and returns its root
// element's name and the text of its text elements.
func svgTexts(doc []byte) (string, map[string]bool, error) {
	d := xml.NewDecoder(bytes.NewReader(doc))
	var root string
	texts := map[string]bool{}
	inText := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", nil, err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
			}
			inText = tok.Name.Local == "text"
		case xml.EndElement:
			inText = false
		case xml.CharData:
			if inText {
				texts[string(tok)] = true
			}
		}
	}
	if root == "" {
		return "", nil, errors.New("no element")
	}
	return root, texts, nil
}
