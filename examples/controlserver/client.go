package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Go's http.Client has no timeout by default: a server that accepts and
// never answers holds the caller forever. Every call here has a backstop.
const (
	// CallTimeout bounds every call but the long ones.
	CallTimeout = 60 * time.Second
	// LoadCallTimeout bounds the long calls, Open, Navigate and Reload:
	// the server waits up to its DefaultLoadTimeout (240 s) for a slow
	// page to load.
	LoadCallTimeout = 300 * time.Second
)

// Client calls a control server.
type Client struct {
	// BaseURL is the server's root, such as "http://127.0.0.1:8090".
	BaseURL string
	// HTTP makes every call but the long ones; NewClient gives it CallTimeout.
	HTTP *http.Client
	// Long makes Open, Navigate and Reload; NewClient gives it LoadCallTimeout.
	Long *http.Client
	// Token, when set, is sent as "Authorization: Bearer <Token>".
	Token string
}

// NewClient returns a client of the server at baseURL with the backstop
// timeouts set.
func NewClient(baseURL string) *Client {
	return &Client{
		BaseURL: baseURL,
		HTTP:    &http.Client{Timeout: CallTimeout},
		Long:    &http.Client{Timeout: LoadCallTimeout},
	}
}

// APIError is an error answer from the server: Message is its real reason.
type APIError struct {
	Status  int
	Message string
	Tab     string // the tab a failed Open still opened, if any
}

// Error reads like "500: tab renderer crashed (reason: crashed): POST /browser/reload".
func (e *APIError) Error() string { return strconv.Itoa(e.Status) + ": " + e.Message }

// Open opens a tab at pageURL and returns its ID. When the page fails to
// load, it returns the tab's ID with an *APIError.
func (c *Client) Open(ctx context.Context, pageURL string) (string, error) {
	var out OpenResponse
	err := c.do(ctx, c.Long, http.MethodPost, "/browser/tabs", OpenRequest{URL: pageURL}, &out)
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Tab, err
	}
	return out.Tab, err
}

// Tabs lists every tab of the browser, popups too, with the problem a call
// on it would meet; the server asks no page for it.
func (c *Client) Tabs(ctx context.Context) ([]TabInfo, error) {
	var out TabsResponse
	err := c.do(ctx, c.HTTP, http.MethodGet, "/browser/tabs", nil, &out)
	return out.Tabs, err
}

// Navigate loads pageURL in the tab and waits for it to load; it recovers a
// tab whose load failed, or that crashed.
func (c *Client) Navigate(ctx context.Context, tab, pageURL string) (TabResponse, error) {
	var out TabResponse
	err := c.do(ctx, c.Long, http.MethodPost, "/browser/navigate", NavigateRequest{Tab: tab, URL: pageURL}, &out)
	return out, err
}

// Reload reloads the tab and waits for it to load; it recovers a crashed tab.
func (c *Client) Reload(ctx context.Context, tab string) (TabResponse, error) {
	var out TabResponse
	err := c.do(ctx, c.Long, http.MethodPost, "/browser/reload", TabRequest{Tab: tab}, &out)
	return out, err
}

// CloseTab closes the tab, whatever its state.
func (c *Client) CloseTab(ctx context.Context, tab string) error {
	var out TabResponse
	return c.do(ctx, c.HTTP, http.MethodPost, "/browser/close", TabRequest{Tab: tab}, &out)
}

// Dialog accepts or dismisses the tab's JavaScript dialog, typing
// promptText into a prompt that is accepted.
func (c *Client) Dialog(ctx context.Context, tab string, accept bool, promptText string) (TabResponse, error) {
	var out TabResponse
	err := c.do(ctx, c.HTTP, http.MethodPost, "/browser/dialog", DialogRequest{Tab: tab, Accept: accept, PromptText: promptText}, &out)
	return out, err
}

// DOM returns the tab's HTML capped at maxBytes; 0 means the server's default.
func (c *Client) DOM(ctx context.Context, tab string, maxBytes int) (DOMResponse, error) {
	return c.FrameDOM(ctx, tab, "", maxBytes)
}

// FrameDOM is DOM of the tab's iframe frame, an ID from Frames; an empty
// frame reads the page.
func (c *Client) FrameDOM(ctx context.Context, tab, frame string, maxBytes int) (DOMResponse, error) {
	q := url.Values{"tab": {tab}}
	if frame != "" {
		q.Set("frame", frame)
	}
	if maxBytes != 0 {
		q.Set("max_bytes", strconv.Itoa(maxBytes))
	}
	var out DOMResponse
	err := c.do(ctx, c.HTTP, http.MethodGet, "/browser/dom?"+q.Encode(), nil, &out)
	return out, err
}

// Frames lists the tab's iframes, with the problem a call in each would
// meet; the server asks no page for it.
func (c *Client) Frames(ctx context.Context, tab string) ([]FrameInfo, error) {
	var out FramesResponse
	err := c.do(ctx, c.HTTP, http.MethodGet, "/browser/frames?"+url.Values{"tab": {tab}}.Encode(), nil, &out)
	return out.Frames, err
}

// SnapshotQuery is what GET /browser/snapshot lists: the tab's elements,
// or only Frame's, or only those inside what Selector matches, from
// Offset on.
type SnapshotQuery struct {
	Frame, Selector string
	Offset          int
}

// Snapshot lists the tab's elements with their refs, at most 500 at a
// time; read on with the answer's NextOffset as q.Offset.
func (c *Client) Snapshot(ctx context.Context, tab string, q SnapshotQuery) (SnapshotResponse, error) {
	v := url.Values{"tab": {tab}}
	if q.Frame != "" {
		v.Set("frame", q.Frame)
	}
	if q.Selector != "" {
		v.Set("selector", q.Selector)
	}
	if q.Offset != 0 {
		v.Set("offset", strconv.Itoa(q.Offset))
	}
	var out SnapshotResponse
	err := c.do(ctx, c.HTTP, http.MethodGet, "/browser/snapshot?"+v.Encode(), nil, &out)
	return out, err
}

// Act does what req says on an element of the tab, with POST
// /browser/act, and returns what it did and set off.
func (c *Client) Act(ctx context.Context, req ActRequest) (ActResponse, error) {
	var out ActResponse
	err := c.do(ctx, c.HTTP, http.MethodPost, "/browser/act", req, &out)
	return out, err
}

// Clickables lists the first MaxClickables elements of the tab's snapshot.
func (c *Client) Clickables(ctx context.Context, tab string) (ClickablesResponse, error) {
	return c.FrameClickables(ctx, tab, "")
}

// FrameClickables is Clickables in the tab's iframe frame, with boxes in
// the frame's viewport; an empty frame lists the page's.
func (c *Client) FrameClickables(ctx context.Context, tab, frame string) (ClickablesResponse, error) {
	q := url.Values{"tab": {tab}}
	if frame != "" {
		q.Set("frame", frame)
	}
	var out ClickablesResponse
	err := c.do(ctx, c.HTTP, http.MethodGet, "/browser/clickables?"+q.Encode(), nil, &out)
	return out, err
}

// Scroll scrolls the tab by dx, dy pixels and returns the new position.
func (c *Client) Scroll(ctx context.Context, tab string, dx, dy float64) (ScrollResponse, error) {
	return c.FrameScroll(ctx, tab, "", dx, dy)
}

// FrameScroll scrolls the tab's iframe frame by dx, dy pixels and returns
// its new position; an empty frame scrolls the page.
func (c *Client) FrameScroll(ctx context.Context, tab, frame string, dx, dy float64) (ScrollResponse, error) {
	var out ScrollResponse
	err := c.do(ctx, c.HTTP, http.MethodPost, "/browser/scroll", ScrollRequest{Tab: tab, Frame: frame, DX: dx, DY: dy}, &out)
	return out, err
}

// Cursor moves the mouse to x, y and returns the element under it.
func (c *Client) Cursor(ctx context.Context, tab string, x, y float64) (CursorResponse, error) {
	var out CursorResponse
	err := c.do(ctx, c.HTTP, http.MethodPost, "/browser/cursor", CursorRequest{Tab: tab, X: x, Y: y}, &out)
	return out, err
}

// Prompt sets what the tab's next sign-in or file chooser gets, with
// POST /browser/prompt.
func (c *Client) Prompt(ctx context.Context, req PromptRequest) (PromptResponse, error) {
	var out PromptResponse
	err := c.do(ctx, c.HTTP, http.MethodPost, "/browser/prompt", req, &out)
	return out, err
}

// Click clicks at x, y and returns the element clicked and, for a file
// input, the files it took.
func (c *Client) Click(ctx context.Context, tab string, x, y float64) (ClickResponse, error) {
	var out ClickResponse
	err := c.do(ctx, c.HTTP, http.MethodPost, "/browser/click", ClickRequest{Tab: tab, X: x, Y: y}, &out)
	return out, err
}

// do sends one request and decodes the answer into out, or an error answer
// into an *APIError.
func (c *Client) do(ctx context.Context, hc *http.Client, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("encode request: %w", err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err // names the URL, and says "Client.Timeout exceeded" at the backstop
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("%s %s: read answer: %w", method, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		var e ErrorResponse
		if json.Unmarshal(data, &e) != nil || e.Error == "" {
			e.Error = fmt.Sprintf("%s %s: %s", method, path, bytes.TrimSpace(data))
		}
		return &APIError{Status: resp.StatusCode, Message: e.Error, Tab: e.Tab}
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s %s: decode answer: %w", method, path, err)
	}
	return nil
}
