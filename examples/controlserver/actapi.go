package main

// The JSON bodies of GET /browser/snapshot and POST /browser/act.

// SnapshotResponse answers GET /browser/snapshot?tab=ID[&frame=ID]
// [&selector=CSS][&offset=N]: the elements a user acts on or reads by, at
// most 500 or 100 KiB at a time, each with a ref that POST /browser/act
// takes until the page navigates. Iframes' elements follow the page's;
// those of a frame the server would not open are left out and named in
// Skipped.
type SnapshotResponse struct {
	Tab      string            `json:"tab"`
	URL      string            `json:"url"`
	Elements []SnapshotElement `json:"elements"`
	Shown    int               `json:"shown"`
	Total    int               `json:"total"`  // the elements found: more than Offset+Shown when a cap cut the list
	Offset   int               `json:"offset"` // the first element's place among the Total
	// NextOffset is the offset to pass to read on; 0 at the end.
	NextOffset int            `json:"next_offset"`
	Skipped    []SkippedFrame `json:"skipped,omitempty"`
	// Notice says how to read on when a cap cut the list, such as
	// "showing elements 1-500 of 1200: read on with GET /browser/snapshot?offset=500&tab=ID".
	Notice string `json:"notice,omitempty"`
}

// SnapshotElement is one element of a SnapshotResponse.
type SnapshotElement struct {
	Ref       string  `json:"ref"`                // "e12", or "f1e3" in an iframe
	Role      string  `json:"role"`               // its ARIA role, or its tag name when it is clickable only
	Name      string  `json:"name,omitempty"`     // its accessible name
	Value     string  `json:"value,omitempty"`    // what a field holds; never a password
	Frame     string  `json:"frame,omitempty"`    // its iframe; empty for the page
	Disabled  bool    `json:"disabled,omitempty"` // it takes no input
	Checked   string  `json:"checked,omitempty"`  // "true", "false" or "mixed" for a checkbox or radio
	Expanded  string  `json:"expanded,omitempty"` // "true" or "false" for what expands
	Focused   bool    `json:"focused,omitempty"`
	Offscreen bool    `json:"offscreen,omitempty"` // outside its frame's viewport: an action scrolls to it
	Line      string  `json:"line"`                // the element in one line, as `e12 button "Buy" [disabled]`
	X         float64 `json:"x"`                   // its box, in CSS pixels of its frame's viewport
	Y         float64 `json:"y"`
	W         float64 `json:"w"`
	H         float64 `json:"h"`
}

// SkippedFrame is an iframe a snapshot left out, and why.
type SkippedFrame struct {
	Frame  string `json:"frame"`
	URL    string `json:"url"`
	Reason string `json:"reason"`
}

// ActRequest is the body of POST /browser/act: do Kind on the element Ref
// (from GET /browser/snapshot) or Selector (a CSS selector, in the iframe
// Frame from GET /browser/frames, or the page) names, as a user would.
type ActRequest struct {
	Tab string `json:"tab"`
	// Kind is click, double-click, right-click, hover, fill, press,
	// select or scroll.
	Kind     string   `json:"kind"`
	Ref      string   `json:"ref,omitempty"`
	Selector string   `json:"selector,omitempty"`
	Frame    string   `json:"frame,omitempty"`
	Text     string   `json:"text,omitempty"`   // what fill types in place of what the field holds
	Key      string   `json:"key,omitempty"`    // what press presses: "Enter", "Tab", "a"; with no element, on the focused one
	Values   []string `json:"values,omitempty"` // what select chooses, each an option's value or label
	// NoWait answers at once when the element cannot take the action,
	// where by default the server checks again until the call's deadline.
	NoWait bool `json:"no_wait,omitempty"`
}

// ActResponse answers POST /browser/act: what was done, and what it set
// off.
type ActResponse struct {
	Tab  string `json:"tab"`
	URL  string `json:"url"` // the tab's URL now
	Kind string `json:"kind"`
	// Done says it in one line, such as
	// `click on <a id="next">, navigation to http://127.0.0.1:8000/next pending`.
	Done     string  `json:"done"`
	Element  string  `json:"element"`            // the element acted on, as its opening tag
	Received string  `json:"received,omitempty"` // the element that received the input: Element or one inside it
	X        float64 `json:"x,omitempty"`        // where the mouse went, in CSS pixels of the viewport
	Y        float64 `json:"y,omitempty"`
	Value    string  `json:"value,omitempty"` // the field's value after fill or select, read back
	// Navigation is the navigation of the tab the action started.
	Navigation *ActNavigation `json:"navigation,omitempty"`
	// Dialog is the JavaScript dialog the action opened; POST
	// /browser/dialog answers it, and until then the tab refuses calls.
	Dialog *ActDialog `json:"dialog,omitempty"`
	// Download is the download the action started; the server saves none.
	Download *ActDownload `json:"download,omitempty"`
	NewTabs  []string     `json:"new_tabs,omitempty"` // the tabs the action opened
	// Next says what to do about what the action set off, naming the
	// endpoints that do it.
	Next string `json:"next,omitempty"`
}

// ActNavigation is a navigation an action started: State is pending,
// committed or failed, with Error.
type ActNavigation struct {
	URL   string `json:"url"`
	State string `json:"state"`
	Error string `json:"error,omitempty"`
}

// ActDialog is a JavaScript dialog an action opened.
type ActDialog struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// ActDownload is a download an action started, with the browser's last
// word on it (State), such as "denied".
type ActDownload struct {
	Name  string `json:"name"`
	URL   string `json:"url"`
	State string `json:"state,omitempty"`
}
