package agentprompt_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/agentprompt"
)

// uploads makes an upload directory, resolved as LoadConfig resolves it,
// holding a.txt, sub/, a link to a file beside it that it must never give
// (out.txt) and a link to a.txt (in.txt); outside is that file's path.
func uploads(t *testing.T) (dir, outside string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	dir = filepath.Join(root, "uploads")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello"), 0o600))
	outside = filepath.Join(root, "private.txt")
	require.NoError(t, os.WriteFile(outside, []byte("private"), 0o600))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "out.txt")))
	require.NoError(t, os.Symlink("a.txt", filepath.Join(dir, "in.txt")))
	return dir, outside
}

func TestUploadPath(t *testing.T) {
	dir, outside := uploads(t)
	a := filepath.Join(dir, "a.txt")
	tests := []struct{ name, in, want, err string }{
		{name: "file", in: "a.txt", want: a},
		{name: "through sub", in: "sub/../a.txt", want: a},
		{name: "link inside", in: "in.txt", want: a},
		{name: "parent", in: "../private.txt", err: `file "../private.txt": pass a name inside the upload directory, with no .. and not an absolute path`},
		{name: "absolute", in: outside, err: `file "` + outside + `": pass a name inside the upload directory, with no .. and not an absolute path`},
		{name: "link out", in: "out.txt", err: `file "out.txt" links out of the upload directory: the server gives only files inside it`},
		{name: "missing", in: "missing.txt", err: `file "missing.txt" does not exist in the upload directory`},
		{name: "directory", in: "sub", err: `file "sub" is not a regular file`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := agentprompt.UploadPath(dir, tt.in)
			if tt.err != "" {
				require.Error(t, err)
				assert.Equal(t, tt.err, err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestUploadPathNoDir(t *testing.T) {
	_, err := agentprompt.UploadPath("", "a.txt")
	assert.ErrorIs(t, err, agentprompt.ErrNoUploadDir)
	_, err = agentprompt.Config{}.UploadPaths([]string{"a.txt"})
	assert.ErrorIs(t, err, agentprompt.ErrNoUploadDir)
}

// UploadPaths gives every name's path, or the first refusal and none.
func TestUploadPaths(t *testing.T) {
	dir, _ := uploads(t)
	cfg := agentprompt.Config{UploadDir: dir}
	got, err := cfg.UploadPaths([]string{"a.txt", "in.txt"})
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(dir, "a.txt"), filepath.Join(dir, "a.txt")}, got)

	got, err = cfg.UploadPaths([]string{"a.txt", "../private.txt", "missing.txt"})
	assert.EqualError(t, err, `file "../private.txt": pass a name inside the upload directory, with no .. and not an absolute path`)
	assert.Nil(t, got)
}
