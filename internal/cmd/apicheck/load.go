package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
)

// listed is what apicheck reads of one package from `go list -json`.
type listed struct {
	ImportPath string
	Export     string
	DepOnly    bool
	Error      *struct{ Err string }
}

// load builds the package in dir and its dependencies with `go list -export`
// run inside dir, then imports the package from its export data.
func load(dir string) (*types.Package, error) {
	cmd := exec.Command(goCmd(), "list", "-export", "-deps", "-json=ImportPath,Export,DepOnly,Error", ".")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v\n%s", err, stderr.Bytes())
	}
	exports := map[string]string{}
	var target string
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list output: %v", err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("%s: %s", p.ImportPath, p.Error.Err)
		}
		exports[p.ImportPath] = p.Export
		if !p.DepOnly {
			target = p.ImportPath
		}
	}
	if target == "" {
		return nil, errors.New("go list named no package")
	}
	lookup := func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	}
	return importer.ForCompiler(token.NewFileSet(), "gc", lookup).Import(target)
}

// goCmd is the go command to run: $GO, as the Makefile sets it, or go.
func goCmd() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	return "go"
}
