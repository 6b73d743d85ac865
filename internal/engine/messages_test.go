package engine_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/tabguard/tabguard/internal/enginetest"
)

// TestMessagesCoverEveryCommand holds that enginetest.Messages, which the
// backends' encoder tests use, sends every command the engine sends.
func TestMessagesCoverEveryCommand(t *testing.T) {
	sent := map[string]bool{}
	for _, c := range enginetest.Messages(t) {
		sent[c.Method] = true
	}
	for _, m := range enginetest.Methods {
		assert.True(t, sent[m], "%s is not sent", m)
	}
	for m := range sent {
		assert.Contains(t, enginetest.Methods, m, "a command missing from enginetest.Methods")
	}
}
