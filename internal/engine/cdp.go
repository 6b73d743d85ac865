package engine

import "encoding/json"

// The CDP messages the engine sends, with the fields it uses. Every field
// is sent, or, a string, left out only when empty (omitempty, which
// encoding/json and chromedp's jsonv2 both treat so for a string): no bool
// is ever dropped.

type navigateParams struct {
	URL string `json:"url"`
}

type navigateResult struct {
	FrameID   string `json:"frameId"`
	LoaderID  string `json:"loaderId,omitempty"`
	ErrorText string `json:"errorText,omitempty"`
}

type handleDialogParams struct {
	Accept     bool   `json:"accept"`
	PromptText string `json:"promptText,omitempty"`
}

type evaluateParams struct {
	Expression    string `json:"expression"`
	ReturnByValue bool   `json:"returnByValue"`
	AwaitPromise  bool   `json:"awaitPromise"`
}

type evaluateResult struct {
	Result struct {
		Type  string          `json:"type"`
		Value json.RawMessage `json:"value,omitempty"`
	} `json:"result"`
	ExceptionDetails json.RawMessage `json:"exceptionDetails,omitempty"`
}

type targetParams struct {
	TargetID string `json:"targetId"`
}

type targetInfoResult struct {
	TargetInfo TargetInfo `json:"targetInfo"`
}

type targetsResult struct {
	TargetInfos []TargetInfo `json:"targetInfos"`
}

type discoverParams struct {
	Discover bool `json:"discover"`
}

type createTargetParams struct {
	URL string `json:"url"`
}

type historyResult struct {
	CurrentIndex int `json:"currentIndex"`
	Entries      []struct {
		URL string `json:"url"`
	} `json:"entries"`
}
