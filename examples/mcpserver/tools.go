package main

// The tools' inputs and outputs. Every tab argument is an ID from open_tab
// or list_tabs, and every frame argument an ID from list_frames.

// ListTabsInput is the input of list_tabs.
type ListTabsInput struct{}

// ListTabsOutput is the result of list_tabs.
type ListTabsOutput struct {
	Tabs []TabInfo `json:"tabs" jsonschema:"every tab of the browser, popups too"`
}

// TabInfo is one tab in list_tabs.
type TabInfo struct {
	Tab     string `json:"tab" jsonschema:"the tab ID"`
	URL     string `json:"url"`
	Title   string `json:"title"`
	Opener  string `json:"opener,omitempty" jsonschema:"the tab that opened this one"`
	Watched bool   `json:"watched" jsonschema:"whether the server opened or took over the tab; other tabs show only what the browser reports of them"`
	Problem string `json:"problem,omitempty" jsonschema:"why a call on the tab would be refused now, and the tool that fixes it"`
}

// OpenTabInput is the input of open_tab.
type OpenTabInput struct {
	URL string `json:"url" jsonschema:"the page to open; http and https unless the server allows more"`
}

// TabOutput names the tab a tool acted on.
type TabOutput struct {
	Tab string `json:"tab" jsonschema:"the tab ID to pass to the other tools"`
	URL string `json:"url" jsonschema:"the tab's URL now"`
}

// NavigateInput is the input of navigate.
type NavigateInput struct {
	Tab string `json:"tab"`
	URL string `json:"url" jsonschema:"the page to load; http and https unless the server allows more"`
}

// TabInput is the input of the tools that need only a tab.
type TabInput struct {
	Tab string `json:"tab"`
}

// HandleDialogInput is the input of handle_dialog.
type HandleDialogInput struct {
	Tab        string `json:"tab"`
	Accept     bool   `json:"accept" jsonschema:"true presses OK, false presses Cancel"`
	PromptText string `json:"prompt_text,omitempty" jsonschema:"the text to type into a prompt that is accepted"`
}

// GetTabDOMInput is the input of get_tab_dom.
type GetTabDOMInput struct {
	Tab      string `json:"tab"`
	MaxBytes int    `json:"max_bytes,omitempty" jsonschema:"cap on the text returned, in bytes; default 40000, at most 1000000"`
	Snapshot string `json:"snapshot,omitempty" jsonschema:"continue reading this snapshot from an earlier call"`
	Offset   int    `json:"offset,omitempty" jsonschema:"where to start in the snapshot, in bytes: the next_offset of the earlier call"`
	Selector string `json:"selector,omitempty" jsonschema:"read only the elements that match this CSS selector"`
	Text     bool   `json:"text,omitempty" jsonschema:"read the visible text instead of the HTML"`
	Frame    string `json:"frame,omitempty" jsonschema:"read this iframe of the tab, a frame ID from list_frames, instead of the page; pass it again to read on"`
}

// GetTabDOMOutput is the structured result of get_tab_dom; the text
// itself, with a notice when more follows, is the text content.
type GetTabDOMOutput struct {
	Snapshot   string `json:"snapshot" jsonschema:"the snapshot to pass to read on"`
	Offset     int    `json:"offset" jsonschema:"where this window starts, in bytes"`
	NextOffset int    `json:"next_offset" jsonschema:"the offset to pass to read on; 0 at the end"`
	Size       int    `json:"size" jsonschema:"the byte size of the whole snapshot; -1 until the page has counted it"`
	Changed    bool   `json:"changed" jsonschema:"whether the page changed since the snapshot was taken"`
}

// EvalInTabInput is the input of eval_in_tab.
type EvalInTabInput struct {
	Tab   string `json:"tab"`
	JS    string `json:"js" jsonschema:"a JavaScript function such as () => document.title; a returned promise is awaited"`
	Frame string `json:"frame,omitempty" jsonschema:"run it in this iframe of the tab, a frame ID from list_frames, instead of the page"`
}

// EvalInTabOutput is the result of eval_in_tab.
type EvalInTabOutput struct {
	Value any `json:"value" jsonschema:"the function's result as JSON"`
}

// ListFramesOutput is the result of list_frames.
type ListFramesOutput struct {
	Frames []FrameInfo `json:"frames" jsonschema:"the tab's iframes, in the order they were attached"`
}

// FrameInfo is one iframe in list_frames.
type FrameInfo struct {
	Frame        string `json:"frame" jsonschema:"the frame ID to pass to get_tab_dom and eval_in_tab"`
	Parent       string `json:"parent" jsonschema:"the frame that holds it: the tab ID for an iframe of the page itself"`
	URL          string `json:"url" jsonschema:"its page, or the page it loads or failed to load; empty before its first load starts"`
	OutOfProcess bool   `json:"out_of_process" jsonschema:"whether it runs in a browser process of its own (an iframe of another site)"`
	Loading      bool   `json:"loading" jsonschema:"whether it has no page of its own yet: a call in it waits for one, up to the deadline"`
	Problem      string `json:"problem,omitempty" jsonschema:"why a call in the frame would be refused now, and the tool that fixes it"`
}

// HandlePromptInput is the input of handle_prompt.
type HandlePromptInput struct {
	Tab    string   `json:"tab"`
	Kind   string   `json:"kind" jsonschema:"sign_in: let the server answer the tab's sign-ins at origin with its configured credentials; file_chooser: give the tab's next file chooser files"`
	Origin string   `json:"origin,omitempty" jsonschema:"for sign_in: the origin the sign-in error names, such as http://127.0.0.1:8080"`
	Files  []string `json:"files,omitempty" jsonschema:"for file_chooser: names of files in the server's upload directory, such as report.pdf or dir/report.pdf; one for an input that takes one file"`
}

// HandlePromptOutput is the result of handle_prompt: what was set, never
// a credential.
type HandlePromptOutput struct {
	Tab    string   `json:"tab"`
	Kind   string   `json:"kind"`
	Origin string   `json:"origin,omitempty" jsonschema:"the origin whose sign-ins the server now answers on the tab"`
	Files  []string `json:"files,omitempty" jsonschema:"the files the tab's next file chooser gets"`
	Next   string   `json:"next" jsonschema:"what to do now"`
}

// ClickInput is the input of click: an element by ref or selector, or a
// point x, y when neither is given.
type ClickInput struct {
	Tab      string   `json:"tab"`
	Ref      string   `json:"ref,omitempty" jsonschema:"the element's ref from the snapshot tool, such as e12 or f1e3"`
	Selector string   `json:"selector,omitempty" jsonschema:"a CSS selector of the element, when no ref is given"`
	Frame    string   `json:"frame,omitempty" jsonschema:"the iframe selector is asked in, a frame ID from list_frames; a ref names its frame itself"`
	X        *float64 `json:"x,omitempty" jsonschema:"without ref or selector: CSS pixels from the left of the tab's viewport"`
	Y        *float64 `json:"y,omitempty" jsonschema:"without ref or selector: CSS pixels from the top of the tab's viewport"`
}

// ClickOutput is the result of click.
type ClickOutput struct {
	Tab   string   `json:"tab"`
	URL   string   `json:"url" jsonschema:"the tab's URL now"`
	Tag   string   `json:"tag" jsonschema:"the element clicked, such as button; empty when there is none"`
	Files []string `json:"files,omitempty" jsonschema:"the names of the files a file input clicked took"`
	ActResult
}

// ScreenshotInput is the input of screenshot.
type ScreenshotInput struct {
	Tab      string `json:"tab"`
	FullPage bool   `json:"full_page,omitempty" jsonschema:"capture the whole page instead of the viewport; refused for a page over about 67 megapixels"`
}

// CaptureOutput is the structured result of screenshot and pdf; the
// image or the document itself is the content.
type CaptureOutput struct {
	Tab   string `json:"tab"`
	URL   string `json:"url" jsonschema:"the tab's URL now"`
	Bytes int    `json:"bytes" jsonschema:"the size of the image or the document"`
}

// PDFInput is the input of pdf.
type PDFInput struct {
	Tab             string `json:"tab"`
	Landscape       bool   `json:"landscape,omitempty" jsonschema:"print in landscape instead of portrait"`
	PrintBackground bool   `json:"print_background,omitempty" jsonschema:"print background colors and images too"`
}

// RecoverTabOutput is the result of recover_tab.
type RecoverTabOutput struct {
	Tab    string `json:"tab"`
	URL    string `json:"url" jsonschema:"the tab's URL now"`
	Action string `json:"action" jsonschema:"what was done: nothing, dismissed the dialog, reloaded, terminated the script, or crashed the hung renderer and reloaded"`
	Result string `json:"result" jsonschema:"what kept the tab from answering, and what was done about it"`
}
