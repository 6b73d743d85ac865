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
	// IsDownload says the navigation became a download (Chrome 95 on).
	IsDownload bool `json:"isDownload,omitempty"`
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

type frameParams struct {
	FrameID string `json:"frameId"`
}

type nodeParams struct {
	BackendNodeID int64 `json:"backendNodeId"`
}

type resolveParams struct {
	BackendNodeID int64  `json:"backendNodeId"`
	ObjectGroup   string `json:"objectGroup,omitempty"`
}

type callOnParams struct {
	ObjectID            string    `json:"objectId"`
	FunctionDeclaration string    `json:"functionDeclaration"`
	Arguments           []callArg `json:"arguments,omitempty"`
	ReturnByValue       bool      `json:"returnByValue"`
	AwaitPromise        bool      `json:"awaitPromise"`
}

type callArg struct {
	Value json.RawMessage `json:"value"`
}

// frameResult is the result of an eval in a frame, its RemoteObject kept
// raw for the backend to type.
type frameResult struct {
	Result           json.RawMessage `json:"result"`
	ExceptionDetails json.RawMessage `json:"exceptionDetails,omitempty"`
}

type frameTree struct {
	Frame struct {
		ID             string `json:"id"`
		ParentID       string `json:"parentId"`
		URL            string `json:"url"`
		URLFragment    string `json:"urlFragment"`
		UnreachableURL string `json:"unreachableUrl"`
	} `json:"frame"`
	ChildFrames []frameTree `json:"childFrames"`
}

type frameTreeResult struct {
	FrameTree frameTree `json:"frameTree"`
}
