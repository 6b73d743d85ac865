package main

// The JSON bodies of the control server's API, shared by the server and the
// client. Every error answer is an ErrorResponse.

// OpenRequest is the body of POST /browser/tabs.
type OpenRequest struct {
	URL string `json:"url"`
}

// OpenResponse answers POST /browser/tabs.
type OpenResponse struct {
	Tab string `json:"tab"`
}

// DOMResponse answers GET /browser/dom.
type DOMResponse struct {
	HTML      string `json:"html"`
	Size      int    `json:"size"`
	Truncated bool   `json:"truncated"`
}

// Clickable is one element of GET /browser/clickables: an element of GET
// /browser/snapshot in the shape older clients read.
type Clickable struct {
	Ref  string  `json:"ref"`            // names it to POST /browser/act
	Tag  string  `json:"tag"`            // its role, such as "link" or "button", or its tag name when it is clickable only
	Text string  `json:"text,omitempty"` // its accessible name
	X    float64 `json:"x"`
	Y    float64 `json:"y"`
	W    float64 `json:"w"`
	H    float64 `json:"h"`
}

// ClickablesResponse answers GET /browser/clickables: the first
// MaxClickables elements of GET /browser/snapshot. Total counts every
// element the snapshot found.
type ClickablesResponse struct {
	Items     []Clickable `json:"items"`
	Total     int         `json:"total"`
	Truncated bool        `json:"truncated"`
}

// ScrollRequest is the body of POST /browser/scroll: scroll by DX, DY
// pixels, the page or, with Frame, that iframe of it.
type ScrollRequest struct {
	Tab   string  `json:"tab"`
	Frame string  `json:"frame,omitempty"` // a frame ID from GET /browser/frames
	DX    float64 `json:"dx"`
	DY    float64 `json:"dy"`
}

// ScrollResponse answers POST /browser/scroll with the new scroll position.
type ScrollResponse struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// CursorRequest is the body of POST /browser/cursor: move the mouse to X, Y
// in CSS pixels of the viewport.
type CursorRequest struct {
	Tab string  `json:"tab"`
	X   float64 `json:"x"`
	Y   float64 `json:"y"`
}

// CursorResponse answers POST /browser/cursor with the element under the
// cursor; Tag is empty when there is none.
type CursorResponse struct {
	Tag  string `json:"tag"`
	Text string `json:"text,omitempty"`
}

// TabsResponse answers GET /browser/tabs: every tab of the browser, popups
// too, from what the browser reported, without asking any page.
type TabsResponse struct {
	Tabs []TabInfo `json:"tabs"`
}

// TabInfo is one tab in GET /browser/tabs.
type TabInfo struct {
	Tab     string `json:"tab"`
	URL     string `json:"url"`
	Title   string `json:"title"`
	Opener  string `json:"opener,omitempty"` // the tab that opened this one
	Watched bool   `json:"watched"`          // the server opened or took over the tab
	// Problem is why a call on the tab would be refused now, and the
	// endpoint that fixes it; empty for a healthy tab.
	Problem string `json:"problem,omitempty"`
}

// FramesResponse answers GET /browser/frames: the tab's iframes, in the
// order they were attached, from the tab's events, asking no page.
type FramesResponse struct {
	Frames []FrameInfo `json:"frames"`
}

// FrameInfo is one iframe in GET /browser/frames. Its Frame names it to
// GET /browser/dom, GET /browser/snapshot, GET /browser/clickables,
// POST /browser/scroll and POST /browser/act.
type FrameInfo struct {
	Frame  string `json:"frame"`
	Parent string `json:"parent"` // the frame that holds it: the tab's ID for an iframe of the page itself
	// URL is its page, or the page it loads or failed to load; empty
	// before its first load starts.
	URL          string `json:"url"`
	OutOfProcess bool   `json:"out_of_process"` // it runs in a browser process of its own (an iframe of another site)
	// Loading reports that it has no page of its own yet: a call in it
	// waits for one, up to the deadline.
	Loading bool `json:"loading"`
	// Problem is why a call in the frame would be refused now, and the
	// endpoint that fixes it; empty for a healthy frame.
	Problem string `json:"problem,omitempty"`
}

// NavigateRequest is the body of POST /browser/navigate.
type NavigateRequest struct {
	Tab string `json:"tab"`
	URL string `json:"url"`
}

// TabRequest is the body of POST /browser/reload and POST /browser/close.
type TabRequest struct {
	Tab string `json:"tab"`
}

// DialogRequest is the body of POST /browser/dialog: accept (OK) or
// dismiss (Cancel) the tab's JavaScript dialog, typing PromptText into a
// prompt that is accepted.
type DialogRequest struct {
	Tab        string `json:"tab"`
	Accept     bool   `json:"accept"`
	PromptText string `json:"prompt_text,omitempty"`
}

// TabResponse answers POST /browser/navigate, /browser/reload,
// /browser/close and /browser/dialog with the tab and its URL now.
type TabResponse struct {
	Tab string `json:"tab"`
	URL string `json:"url,omitempty"`
}

// PromptRequest is the body of POST /browser/prompt: with Kind "sign_in"
// and Origin, the server answers the tab's sign-ins at that origin with
// its configured credentials; with Kind "file_chooser" and Files (names
// inside the server's upload directory), the tab's next file chooser gets
// those files, once.
type PromptRequest struct {
	Tab    string   `json:"tab"`
	Kind   string   `json:"kind"`
	Origin string   `json:"origin,omitempty"`
	Files  []string `json:"files,omitempty"`
}

// PromptResponse answers POST /browser/prompt with what was set, never a
// credential, and what to do next.
type PromptResponse struct {
	Tab    string   `json:"tab"`
	Kind   string   `json:"kind"`
	Origin string   `json:"origin,omitempty"`
	Files  []string `json:"files,omitempty"`
	Next   string   `json:"next"`
}

// ClickRequest is the body of POST /browser/click: click at X, Y in CSS
// pixels of the tab's viewport.
type ClickRequest struct {
	Tab string  `json:"tab"`
	X   float64 `json:"x"`
	Y   float64 `json:"y"`
}

// ClickResponse answers POST /browser/click with the element clicked
// (empty when none) and, for a file input, the names of the files it took.
type ClickResponse struct {
	Tab   string   `json:"tab"`
	URL   string   `json:"url"`
	Tag   string   `json:"tag"`
	Files []string `json:"files,omitempty"`
}

// ErrorResponse is the body of every 4xx and 5xx answer. Error is the real
// reason and the endpoint that fixes it, such as "tab renderer crashed
// (reason: crashed): POST /browser/reload". Tab names the tab a failed
// POST /browser/tabs still opened.
type ErrorResponse struct {
	Error string `json:"error"`
	Tab   string `json:"tab,omitempty"`
}
