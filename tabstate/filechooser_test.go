package tabstate_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/tabguard/tabguard/tabstate"
)

// TestChooserCancelled holds what an ErrFileChooser says for each answer
// of a program's Options.FileChooser, and for none: its detail, and advice
// that names Options.FileChooser; usable answers give no error.
func TestChooserCancelled(t *testing.T) {
	tests := []struct {
		name     string
		files    []string
		multiple bool
		err      error
		invalid  bool   // the reason wraps ErrInvalidArgument
		msg      string // of the ErrFileChooser; empty when the files are usable
	}{
		{name: "one file", files: []string{"/a.txt"}},
		{name: "two files, multiple", files: []string{"/a.txt", "/b.txt"}, multiple: true},
		{name: "no callback",
			msg: "file chooser was cancelled: selectSingle input: the call ran and the page was told no file was chosen: set Options.FileChooser to give the page files"},
		{name: "error", err: errors.New("no file for you"),
			msg: "file chooser was cancelled: selectSingle input: Options.FileChooser failed: no file for you: the call ran and the page was told no file was chosen: Options.FileChooser decides which files the page gets"},
		{name: "no file", files: []string{},
			msg: "file chooser was cancelled: selectSingle input: Options.FileChooser chose no file: the call ran and the page was told no file was chosen: Options.FileChooser decides which files the page gets"},
		{name: "two files, single", files: []string{"/a.txt", "/b.txt"},
			msg: "file chooser was cancelled: selectSingle input: Options.FileChooser chose 2 files for a single-file input: the call ran and the page was told no file was chosen: Options.FileChooser must return one path for a single-file input"},
		{name: "relative", files: []string{"/a.txt", "b.txt"}, multiple: true, invalid: true,
			msg: `file chooser was cancelled: selectMultiple input: invalid argument: Options.FileChooser chose "b.txt", which is not an absolute path: the call ran and the page was told no file was chosen: Options.FileChooser must return absolute paths`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mode := tabstate.ChooserSingle
			if tt.multiple {
				mode = tabstate.ChooserMultiple
			}
			var why error
			if tt.name != "no callback" {
				why = tabstate.CheckChosen(tt.files, tt.multiple, tt.err)
			}
			if tt.msg == "" {
				assert.NoError(t, why)
				return
			}
			assert.Equal(t, tt.invalid, errors.Is(why, tabstate.ErrInvalidArgument), "why: %v", why)
			if tt.err != nil {
				assert.ErrorIs(t, why, tt.err)
			}
			err := tabstate.ChooserCancelled("http://127.0.0.1:1/", mode, why)
			assert.ErrorIs(t, err, tabstate.ErrFileChooser)
			assert.NotErrorIs(t, err, tabstate.ErrNoDocument)
			assert.Equal(t, tt.msg, err.Error())
		})
	}
	a := &tabstate.Advice{Refused: map[error]string{tabstate.ErrFileChooser: "call upload_file"}}
	be := a.Refusal(tabstate.ChooserCancelled("", tabstate.ChooserSingle, nil))
	assert.Equal(t, "file chooser was cancelled: selectSingle input: call upload_file", be.Error())
}
