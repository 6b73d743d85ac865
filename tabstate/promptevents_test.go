package tabstate_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tabguard/tabguard/tabstate"
)

// TestDecodePromptEvents decodes the prompt events as Chromium 156 sent
// them.
func TestDecodePromptEvents(t *testing.T) {
	for _, c := range []struct {
		method, params string
		want           tabstate.Event
	}{
		{"Fetch.requestPaused",
			`{"requestId":"interception-job-4.0","request":{"url":"http://127.0.0.1:1/auth","method":"GET","headers":{}},"frameId":"F","resourceType":"Document","networkId":"L4"}`,
			tabstate.RequestPaused{RequestID: "interception-job-4.0", NetworkID: "L4", FrameID: "F", URL: "http://127.0.0.1:1/auth", ResourceType: "Document"}},
		{"Fetch.authRequired",
			`{"requestId":"interception-job-4.0","request":{"url":"http://127.0.0.1:1/auth"},"frameId":"F","resourceType":"Document","authChallenge":{"source":"Server","origin":"http://127.0.0.1:1","scheme":"basic","realm":"x"}}`,
			tabstate.AuthRequired{RequestID: "interception-job-4.0", FrameID: "F", URL: "http://127.0.0.1:1/auth", ResourceType: "Document",
				Origin: "http://127.0.0.1:1", Scheme: "basic", Realm: "x", Source: "Server"}},
		{"Security.certificateError",
			`{"eventId":1,"errorType":"ERR_CERT_AUTHORITY_INVALID","requestURL":"https://127.0.0.1:2/ok"}`,
			tabstate.CertificateError{EventID: 1, ErrorType: "ERR_CERT_AUTHORITY_INVALID", URL: "https://127.0.0.1:2/ok"}},
		{"Page.fileChooserOpened",
			`{"frameId":"F","mode":"selectSingle","backendNodeId":7}`,
			tabstate.FileChooserOpened{FrameID: "F", Mode: "selectSingle", BackendNodeID: 7}},
		{"Network.loadingFailed",
			`{"requestId":"9.3","timestamp":1,"type":"Fetch","errorText":"net::ERR_FAILED","canceled":false,"corsErrorStatus":{"corsError":"LocalNetworkAccessPermissionDenied","failedParameter":""}}`,
			tabstate.LoadingFailed{RequestID: "9.3", ErrorText: "net::ERR_FAILED", CORSError: "LocalNetworkAccessPermissionDenied"}},
	} {
		if !tabstate.Methods[c.method] {
			t.Errorf("%s is not in Methods", c.method)
		}
		got, ok := tabstate.Decode(c.method, []byte(c.params))
		if !ok {
			t.Errorf("%s: not decoded", c.method)
			continue
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.method, d)
		}
	}
}
