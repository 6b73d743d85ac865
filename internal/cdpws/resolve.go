package cdpws

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/tabguard/tabguard/tabstate"
)

// ResolveURL returns the WebSocket URL of a DevTools endpoint: a ws:// or
// wss:// URL as it is, an http:// or https:// one through its /json/version.
//
// A browser pool hands out its endpoint with a token in the query string
// (browserless: http://host:port?token=...) or with credentials in the user
// info, and checks them on every request. So the /json/version request
// carries the endpoint's query string and user info, and so does the URL
// resolved from the answer: the caller's query parameters are added to
// those of the answer's webSocketDebuggerUrl, and where both name a
// parameter the caller's values replace the answer's, since the caller's
// are the ones the pool checks. A pool that takes its key in a header
// (Authorization) gets header on the /json/version request. No error
// quotes the query string, the user info or header; see [RedactedError].
func ResolveURL(ctx context.Context, rawURL string, header http.Header) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("%w: DevTools URL %q: pass ws://host:port/... or http://host:port", tabstate.ErrInvalidArgument, redactURL(rawURL))
	}
	switch u.Scheme {
	case "ws", "wss":
		return rawURL, nil
	case "http", "https":
	default:
		return "", fmt.Errorf("%w: DevTools URL %q: the scheme must be ws, wss, http or https", tabstate.ErrInvalidArgument, redactURL(rawURL))
	}
	v := *u
	v.Path, v.RawPath, v.Fragment, v.RawFragment = "/json/version", "", "", ""
	versionURL := v.String()
	answer, err := fetchVersion(ctx, versionURL, header)
	if err != nil {
		return "", &RedactedError{Op: "resolve", URL: versionURL, Err: redactURLErrors(err)}
	}
	w, err := url.Parse(answer)
	if err != nil {
		return "", &RedactedError{Op: "resolve", URL: versionURL, Err: redactURLErrors(err)}
	}
	// Chrome names the address it listens on; keep the one the caller
	// reached it by, as rod's launcher does, and the caller's credentials
	// for it.
	w.Host = u.Host
	if u.Scheme == "https" {
		w.Scheme = "wss"
	}
	if u.User != nil {
		w.User = u.User
	}
	w.RawQuery = mergeQuery(w.RawQuery, u.RawQuery)
	return w.String(), nil
}

// fetchVersion returns the webSocketDebuggerUrl of the /json/version
// answer at versionURL, asked with header.
func fetchVersion(ctx context.Context, versionURL string, header http.Header) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, versionURL, nil)
	if err != nil {
		return "", err
	}
	for k, vs := range header {
		req.Header[k] = append([]string(nil), vs...)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return "", err
	}
	if res.StatusCode != http.StatusOK {
		// The body is left out: a pool may echo the request, token included.
		return "", fmt.Errorf("status %s", res.Status)
	}
	var version struct {
		WebSocketDebuggerURL string `json:"webSocketDebuggerUrl"`
	}
	if err := json.Unmarshal(body, &version); err != nil {
		return "", err
	}
	if version.WebSocketDebuggerURL == "" {
		return "", errors.New("no webSocketDebuggerUrl in the answer")
	}
	return version.WebSocketDebuggerURL, nil
}

// mergeQuery adds the parameters of the raw query string caller to those
// of own, dropping every parameter of own that caller names too, so the
// caller's values win. Each pair keeps its bytes and its place, own's
// first: url.Values.Encode would sort and re-escape them and drop a pair
// that holds a semicolon, which a token may.
func mergeQuery(own, caller string) string {
	if caller == "" || own == "" {
		return own + caller
	}
	named := make(map[string]bool)
	for _, pair := range strings.Split(caller, "&") {
		named[queryName(pair)] = true
	}
	var pairs []string
	for _, pair := range strings.Split(own, "&") {
		if pair != "" && !named[queryName(pair)] {
			pairs = append(pairs, pair)
		}
	}
	return strings.Join(append(pairs, caller), "&")
}

// queryName returns the unescaped name of one name=value pair.
func queryName(pair string) string {
	name, _, _ := strings.Cut(pair, "=")
	if n, err := url.QueryUnescape(name); err == nil {
		return n
	}
	return name
}
