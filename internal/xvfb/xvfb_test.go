package xvfb_test

import (
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/xvfb"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestStart starts two displays side by side: each takes a display number
// of its own, accepts X clients on its socket, and is gone once stopped.
func TestStart(t *testing.T) {
	var names []string
	for range 2 {
		d, err := xvfb.Start()
		if err != nil {
			xvfb.Unavailable(t, err)
		}
		t.Cleanup(d.Stop)
		require.True(t, strings.HasPrefix(d.Name, ":"), "display %q", d.Name)
		names = append(names, d.Name)
		conn, err := net.DialTimeout("unix", socket(d.Name), 5*time.Second)
		require.NoError(t, err, "an X client connects")
		_ = conn.Close()
	}
	assert.NotEqual(t, names[0], names[1], "each display a number of its own")

	d, err := xvfb.Start()
	require.NoError(t, err)
	d.Stop()
	d.Stop() // twice is fine
	_, err = os.Stat(socket(d.Name))
	assert.True(t, os.IsNotExist(err), "the socket of a stopped display is gone: %v", err)
}

// socket is the Unix socket of X display name.
func socket(name string) string { return "/tmp/.X11-unix/X" + strings.TrimPrefix(name, ":") }

func TestEnv(t *testing.T) {
	d := &xvfb.Display{Name: ":7"}
	got := d.Env([]string{"HOME=/h", "DISPLAY=:0", "PATH=/bin"})
	want := []string{"HOME=/h", "PATH=/bin", "DISPLAY=:7"}
	if !slices.Equal(want, got) {
		t.Errorf("Env() = %v; want %v", got, want)
	}
}

// TestStartNotInstalled: with no Xvfb on PATH, Start says what to install.
func TestStartNotInstalled(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := xvfb.Start()
	require.ErrorIs(t, err, xvfb.ErrNotInstalled)
	assert.Contains(t, err.Error(), "install the xvfb package")
}
