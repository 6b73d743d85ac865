package agentprompt

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrNoUploadDir is the answer to files asked for when the server has no
// upload directory.
var ErrNoUploadDir = errors.New("the server has no upload directory (-upload-dir): it gives a page no files")

// resolveUploadDir returns dir absolute, with its links resolved, so that
// a file's own path can be checked against it.
func resolveUploadDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", fmt.Errorf("-upload-dir: %w", err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("-upload-dir: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("-upload-dir %s is not a directory", dir)
	}
	return abs, nil
}

// UploadPath returns the absolute path of the file name inside the upload
// directory dir: a name that leaves it (.., an absolute path, a link to
// elsewhere), a file that does not exist or one that is not a regular file
// is an error. With no dir, the error is ErrNoUploadDir.
func UploadPath(dir, name string) (string, error) {
	if dir == "" {
		return "", ErrNoUploadDir
	}
	if !filepath.IsLocal(name) {
		return "", fmt.Errorf("file %q: pass a name inside the upload directory, with no .. and not an absolute path", name)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(dir, name))
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("file %q does not exist in the upload directory", name)
	}
	if err != nil {
		return "", fmt.Errorf("file %q: %w", name, err)
	}
	if rel, err := filepath.Rel(dir, real); err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("file %q links out of the upload directory: the server gives only files inside it", name)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("file %q: %w", name, err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("file %q is not a regular file", name)
	}
	return real, nil
}

// UploadPaths returns the paths of names in c's upload directory, each as
// UploadPath returns it; the first name refused is the error.
func (c Config) UploadPaths(names []string) ([]string, error) {
	paths := make([]string, len(names))
	for i, name := range names {
		p, err := UploadPath(c.UploadDir, name)
		if err != nil {
			return nil, err
		}
		paths[i] = p
	}
	return paths, nil
}
