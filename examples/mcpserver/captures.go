package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/go-rod/rod/lib/proto"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/tabstate"
)

// maxCaptureBytes bounds a screenshot or a PDF the tools return: its
// base64, 8 MiB, stays under the 10 MiB at which common stdio clients
// drop the connection. A PDF is cut off as it streams in, so a larger one
// never sits whole in the server's memory.
const maxCaptureBytes = 6 << 20

// errCaptureBytes is the tool error of a screenshot or a PDF over
// maxCaptureBytes.
var errCaptureBytes = fmt.Errorf("capture over the server's bound of %d MiB", maxCaptureBytes>>20)

func (t *browserTools) screenshot(ctx context.Context, _ *mcp.CallToolRequest, in ScreenshotInput) (*mcp.CallToolResult, CaptureOutput, error) {
	w, err := t.tab(ctx, in.Tab)
	if err != nil {
		return nil, CaptureOutput{}, toolError(err)
	}
	png, err := w.Screenshot(ctx, in.FullPage, nil)
	if err != nil {
		return nil, CaptureOutput{}, toolError(err)
	}
	if len(png) > maxCaptureBytes {
		return nil, CaptureOutput{}, fmt.Errorf("%w: the PNG has %d bytes: call screenshot with full_page false, or scroll the part wanted into view with eval_in_tab", errCaptureBytes, len(png))
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: png, MIMEType: "image/png"}}}
	return res, CaptureOutput{Tab: in.Tab, URL: tabstate.ShownURL(w.State().URL), Bytes: len(png)}, nil
}

func (t *browserTools) pdf(ctx context.Context, _ *mcp.CallToolRequest, in PDFInput) (*mcp.CallToolResult, CaptureOutput, error) {
	w, err := t.tab(ctx, in.Tab)
	if err != nil {
		return nil, CaptureOutput{}, toolError(err)
	}
	buf := cappedBuffer{max: maxCaptureBytes}
	n, err := w.PDFTo(ctx, &buf, &proto.PagePrintToPDF{Landscape: in.Landscape, PrintBackground: in.PrintBackground})
	switch {
	case errors.Is(err, errCaptureBytes):
		return nil, CaptureOutput{}, fmt.Errorf("%w: the PDF has more: call get_tab_dom with text true for the page's text, or screenshot", errCaptureBytes)
	case err != nil:
		return nil, CaptureOutput{}, toolError(err)
	}
	url := tabstate.ShownURL(w.State().URL)
	res := &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: fmt.Sprintf("PDF of %s, %d bytes", url, n)},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "tab://" + in.Tab + "/print.pdf", MIMEType: "application/pdf", Blob: buf.Bytes()}},
	}}
	return res, CaptureOutput{Tab: in.Tab, URL: url, Bytes: int(n)}, nil
}

// cappedBuffer is a buffer that refuses to grow past max bytes.
type cappedBuffer struct {
	bytes.Buffer
	max int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > b.max {
		return 0, errCaptureBytes
	}
	return b.Buffer.Write(p)
}

// recoverTab is recover_tab: Watcher.Recover, worded for a model. A step
// that failed says what was found and tried.
func (t *browserTools) recoverTab(ctx context.Context, _ *mcp.CallToolRequest, in TabInput) (*mcp.CallToolResult, RecoverTabOutput, error) {
	w, err := t.tab(ctx, in.Tab)
	if err != nil {
		return nil, RecoverTabOutput{}, toolError(err)
	}
	r, err := w.Recover(ctx)
	if err != nil {
		err = recoverError(err)
		if r.Action == "" {
			return nil, RecoverTabOutput{}, err
		}
		return nil, RecoverTabOutput{}, fmt.Errorf("%s, which failed: %w", r, err)
	}
	return nil, RecoverTabOutput{Tab: in.Tab, URL: tabstate.ShownURL(w.State().URL), Action: string(r.Action), Result: r.String()}, nil
}

// recoverError is err, Recover's failure, in the server's terms. Recover
// times out itself on a renderer that would not crash when told to, which
// leaves only a new tab, and on a browser that answers nothing; its steps'
// timeouts (a reload) are worded by the advice table already.
func recoverError(err error) error {
	te, ok := err.(*tabguard.TimeoutError)
	if !ok {
		return toolError(err)
	}
	c := *te
	switch te.Cause {
	case tabguard.TimeoutHung:
		c.Advice = "call close_tab, then open_tab"
	case tabguard.TimeoutSilent:
		c.Advice = "the server's browser does not answer: restart the server"
	}
	return &c
}
