package agentprompt_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/agentprompt"
)

// frames is a server's view of its tabs: T1 holds the iframe F1, T2 none.
func frames(frame string) string {
	return map[string]string{"T1": "T1", "F1": "T1", "T2": "T2"}[frame]
}

// A sign-in is answered only on the tab it was allowed on, from its page
// or its iframes, until the tab is forgotten; never for a proxy.
func TestStateCredentials(t *testing.T) {
	ctx := context.Background()
	creds := tabguard.Credentials{Username: "agent", Password: "pw"}
	p := agentprompt.NewState(agentprompt.Config{Credentials: map[string]tabguard.Credentials{"http://a.example": creds}}, frames)
	ask := func(frame, origin string, proxy bool) tabguard.Credentials {
		t.Helper()
		got, err := p.Credentials(ctx, tabguard.SignIn{FrameID: frame, Origin: origin, Proxy: proxy})
		assert.NoError(t, err)
		return got
	}
	assert.Zero(t, ask("T1", "http://a.example", false), "not allowed yet")

	p.AllowSignIn("T1", "http://a.example")
	tests := []struct {
		name, frame, origin string
		proxy               bool
		want                tabguard.Credentials
	}{
		{"the tab", "T1", "http://a.example", false, creds},
		{"its iframe, as Chrome writes the origin", "F1", "http://A.example:80", false, creds},
		{"another tab", "T2", "http://a.example", false, tabguard.Credentials{}},
		{"a frame of no tab", "F9", "http://a.example", false, tabguard.Credentials{}},
		{"a proxy", "T1", "http://a.example", true, tabguard.Credentials{}},
		{"another origin", "T1", "http://b.example", false, tabguard.Credentials{}},
		{"not an origin", "T1", "a.example", false, tabguard.Credentials{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ask(tt.frame, tt.origin, tt.proxy))
		})
	}

	p.Forget("T1")
	assert.Zero(t, ask("T1", "http://a.example", false), "forgotten with its tab")
}

// A chooser takes the files set on its tab once; files set again replace
// those not taken; a forgotten tab has none.
func TestStateFileChooser(t *testing.T) {
	ctx := context.Background()
	p := agentprompt.NewState(agentprompt.Config{UploadDir: "/srv/uploads"}, frames)
	choose := func(frame string) []string {
		t.Helper()
		files, err := p.FileChooser(ctx, tabguard.FileChooser{FrameID: frame})
		assert.NoError(t, err)
		return files
	}
	assert.Nil(t, choose("T1"), "none set")

	p.SetFiles("T1", []string{"/srv/uploads/a.txt"})
	assert.Nil(t, choose("T2"), "set on another tab")
	assert.Equal(t, []string{"/srv/uploads/a.txt"}, choose("F1"), "an iframe of the tab")
	assert.Nil(t, choose("T1"), "taken once")

	p.SetFiles("T1", []string{"/srv/uploads/a.txt"})
	p.SetFiles("T1", []string{"/srv/uploads/b.txt", "/srv/uploads/c.txt"})
	assert.Equal(t, []string{"/srv/uploads/b.txt", "/srv/uploads/c.txt"}, choose("T1"), "replaced")

	p.SetFiles("T1", []string{"/srv/uploads/a.txt"})
	p.Forget("T1")
	assert.Nil(t, choose("T1"), "forgotten with its tab")
}

// SetCallbacks installs a callback only where the configuration has
// something to give, and clears one set before.
func TestStateSetCallbacks(t *testing.T) {
	given := func(context.Context, tabguard.FileChooser) ([]string, error) { return []string{"/etc/passwd"}, nil }
	signIn := func(context.Context, tabguard.SignIn) (tabguard.Credentials, error) {
		return tabguard.Credentials{Username: "x"}, nil
	}
	tests := []struct {
		name                 string
		cfg                  agentprompt.Config
		credentials, chooser bool
	}{
		{"nothing configured", agentprompt.Config{}, false, false},
		{"credentials", agentprompt.Config{Credentials: map[string]tabguard.Credentials{"http://a.example": {Username: "u"}}}, true, false},
		{"upload directory", agentprompt.Config{UploadDir: "/srv/uploads"}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tabguard.Options{Credentials: signIn, FileChooser: given}
			agentprompt.NewState(tt.cfg, frames).SetCallbacks(&o)
			assert.Equal(t, tt.credentials, o.Credentials != nil, "Credentials")
			assert.Equal(t, tt.chooser, o.FileChooser != nil, "FileChooser")
			if o.FileChooser != nil {
				files, err := o.FileChooser(context.Background(), tabguard.FileChooser{FrameID: "T1"})
				assert.NoError(t, err)
				assert.Nil(t, files, "the state's own callback, not the one given")
			}
		})
	}
}
