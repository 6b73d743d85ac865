package main

// The inputs and outputs of snapshot and the tools that act on an element:
// click (in tools.go), type, select, press, scroll and hover. An element
// is a ref from snapshot, or a CSS selector, in the page or in an iframe
// from list_frames.

// SnapshotInput is the input of snapshot.
type SnapshotInput struct {
	Tab      string `json:"tab"`
	Frame    string `json:"frame,omitempty" jsonschema:"list only this iframe's elements, a frame ID from list_frames"`
	Selector string `json:"selector,omitempty" jsonschema:"list only the elements inside what this CSS selector matches, in frame or in the page"`
	Offset   int    `json:"offset,omitempty" jsonschema:"skip this many elements: the next_offset of an earlier snapshot, to read on"`
}

// SnapshotOutput is the structured result of snapshot; the elements
// themselves, one line each, are the text content.
type SnapshotOutput struct {
	Tab        string           `json:"tab"`
	URL        string           `json:"url" jsonschema:"the tab's URL now"`
	Shown      int              `json:"shown" jsonschema:"the elements listed"`
	Total      int              `json:"total" jsonschema:"the elements found; more than offset plus shown when a cap cut the list"`
	Offset     int              `json:"offset" jsonschema:"the first element's place among the total"`
	NextOffset int              `json:"next_offset" jsonschema:"the offset to pass to read on; 0 at the end"`
	Skipped    []SkippedFrameOf `json:"skipped,omitempty" jsonschema:"the iframes whose elements are not listed, and why"`
}

// SkippedFrameOf is an iframe a snapshot left out.
type SkippedFrameOf struct {
	Frame  string `json:"frame"`
	URL    string `json:"url"`
	Reason string `json:"reason"`
}

// TypeInput is the input of type.
type TypeInput struct {
	Tab      string `json:"tab"`
	Ref      string `json:"ref,omitempty" jsonschema:"the field's ref from the snapshot tool"`
	Selector string `json:"selector,omitempty" jsonschema:"a CSS selector of the field, when no ref is given"`
	Frame    string `json:"frame,omitempty" jsonschema:"the iframe selector is asked in, a frame ID from list_frames"`
	Text     string `json:"text" jsonschema:"what to type in place of what the field holds; empty clears it"`
}

// SelectInput is the input of select.
type SelectInput struct {
	Tab      string   `json:"tab"`
	Ref      string   `json:"ref,omitempty" jsonschema:"the select element's ref from the snapshot tool"`
	Selector string   `json:"selector,omitempty" jsonschema:"a CSS selector of the select element, when no ref is given"`
	Frame    string   `json:"frame,omitempty" jsonschema:"the iframe selector is asked in, a frame ID from list_frames"`
	Values   []string `json:"values" jsonschema:"the options to choose, each by its value or its label; one for a single select"`
}

// PressInput is the input of press.
type PressInput struct {
	Tab      string `json:"tab"`
	Key      string `json:"key" jsonschema:"the key as KeyboardEvent.key names it: Enter, Tab, Escape, ArrowDown, a"`
	Ref      string `json:"ref,omitempty" jsonschema:"the element to focus and press the key on; without ref or selector, the element that has the focus"`
	Selector string `json:"selector,omitempty" jsonschema:"a CSS selector of that element, when no ref is given"`
	Frame    string `json:"frame,omitempty" jsonschema:"the iframe selector is asked in, a frame ID from list_frames"`
}

// ElementInput is the input of scroll and hover.
type ElementInput struct {
	Tab      string `json:"tab"`
	Ref      string `json:"ref,omitempty" jsonschema:"the element's ref from the snapshot tool"`
	Selector string `json:"selector,omitempty" jsonschema:"a CSS selector of the element, when no ref is given"`
	Frame    string `json:"frame,omitempty" jsonschema:"the iframe selector is asked in, a frame ID from list_frames"`
}

// ActOutput is the result of type, select, press, scroll and hover.
type ActOutput struct {
	Tab string `json:"tab"`
	URL string `json:"url" jsonschema:"the tab's URL now"`
	ActResult
}

// ActResult is what an action on an element did and set off.
type ActResult struct {
	Done       string          `json:"done,omitempty" jsonschema:"what was done and what it set off, in one line"`
	Element    string          `json:"element,omitempty" jsonschema:"the element acted on, as its opening tag"`
	Received   string          `json:"received,omitempty" jsonschema:"the element that received the input: the element or one inside it"`
	Value      string          `json:"value,omitempty" jsonschema:"the field's value after type or select, read back"`
	Navigation *NavigationInfo `json:"navigation,omitempty" jsonschema:"the navigation of the tab the action started"`
	Dialog     *DialogInfo     `json:"dialog,omitempty" jsonschema:"the JavaScript dialog the action opened; handle_dialog answers it"`
	Download   *DownloadInfo   `json:"download,omitempty" jsonschema:"the download the action started; the server saves none"`
	NewTabs    []string        `json:"new_tabs,omitempty" jsonschema:"the tab IDs of the tabs the action opened"`
	Next       string          `json:"next,omitempty" jsonschema:"what to do about what the action set off"`
}

// NavigationInfo is a navigation an action started.
type NavigationInfo struct {
	URL   string `json:"url"`
	State string `json:"state" jsonschema:"pending, committed or failed"`
	Error string `json:"error,omitempty" jsonschema:"why it failed, such as net::ERR_CONNECTION_REFUSED"`
}

// DialogInfo is a JavaScript dialog an action opened.
type DialogInfo struct {
	Type    string `json:"type" jsonschema:"alert, confirm, prompt or beforeunload"`
	Message string `json:"message"`
}

// DownloadInfo is a download an action started.
type DownloadInfo struct {
	Name  string `json:"name"`
	URL   string `json:"url"`
	State string `json:"state,omitempty" jsonschema:"the browser's last word on it, such as denied"`
}
