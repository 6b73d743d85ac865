package main

import (
	"bytes"
	"errors"
	"os"
)

const (
	startMarker = "<!-- pool-table:start -->"
	endMarker   = "<!-- pool-table:end -->"
)

// writeTable replaces what lies between the pool-table markers of the
// file at path with table, leaving every other byte of it as it was.
func writeTable(path, table string) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := splice(old, table)
	if err != nil {
		return errors.New(path + ": " + err.Error())
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, info.Mode().Perm())
}

// splice returns doc with the lines between its markers replaced by table.
func splice(doc []byte, table string) ([]byte, error) {
	i := bytes.Index(doc, []byte(startMarker))
	j := bytes.Index(doc, []byte(endMarker))
	if i < 0 || j < i || bytes.Count(doc, []byte(startMarker)) != 1 || bytes.Count(doc, []byte(endMarker)) != 1 {
		return nil, errors.New("want one " + startMarker + " line followed by one " + endMarker + " line")
	}
	i += len(startMarker)
	var out bytes.Buffer
	out.Write(doc[:i])
	out.WriteString("\n" + table + "\n")
	out.Write(doc[j:])
	return out.Bytes(), nil
}
