package tabstate

// The events of prompts other than JavaScript dialogs. The state machine
// keeps none of them: the engine answers each as the Options say, and
// records what a call needs to tell its reason.

// RequestPaused is Fetch.requestPaused: a request the Fetch domain holds
// until it is continued. NetworkID is its Network request ID, which for a
// document is the navigation's loader ID. Chrome sends it only while Fetch
// is enabled, on the session that enabled it.
type RequestPaused struct{ RequestID, NetworkID, FrameID, URL, ResourceType string }

// AuthRequired is Fetch.authRequired: a server asked for credentials
// (HTTP 401 or a proxy's 407) for a request Fetch holds (enabled with
// handleAuthRequests). RequestID is the held request's; Origin, Scheme
// ("basic", "digest"...), Realm and Source ("Server" or "Proxy") are
// Chrome's authChallenge. The request waits until the challenge is
// answered (Fetch.continueWithAuth).
type AuthRequired struct {
	RequestID, FrameID, URL, ResourceType string
	Origin, Scheme, Realm, Source         string
}

// CertificateError is Security.certificateError: a request met a
// certificate the browser does not trust. EventID is what
// Security.handleCertificateError answers; ErrorType is Chrome's net error,
// such as "ERR_CERT_AUTHORITY_INVALID". Chrome holds the request for an
// answer only while Security.setOverrideCertificateErrors is on; otherwise
// it refuses the certificate itself.
type CertificateError struct {
	EventID        int
	ErrorType, URL string
}

// FileChooserOpened is Page.fileChooserOpened: a file input asked for
// files while Page.setInterceptFileChooserDialog holds choosers. Mode is
// "selectSingle" or "selectMultiple"; BackendNodeID is the input's, for
// DOM.setFileInputFiles.
type FileChooserOpened struct {
	FrameID, Mode string
	BackendNodeID int
}

func (RequestPaused) isEvent()     {}
func (AuthRequired) isEvent()      {}
func (CertificateError) isEvent()  {}
func (FileChooserOpened) isEvent() {}
