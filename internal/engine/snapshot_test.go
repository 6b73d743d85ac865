package engine_test

import (
	"errors"
	"testing"

	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
	"github.com/tabguard/tabguard/tabstate"
)

func TestRefTarget(t *testing.T) {
	fx := setup(t, enginetest.EventsFirst, engine.Config{})
	tests := []struct {
		ref, local string
		want       error
	}{
		{ref: "e1", local: "e1"},
		{ref: "e12", local: "e12"},
		{ref: "f1e3", want: tabstate.ErrStaleRef}, // no snapshot numbered a frame
		{ref: "", want: tabstate.ErrInvalidArgument},
		{ref: "e", want: tabstate.ErrInvalidArgument},
		{ref: "e0", want: tabstate.ErrInvalidArgument},
		{ref: "e01", want: tabstate.ErrInvalidArgument},
		{ref: "e1x", want: tabstate.ErrInvalidArgument},
		{ref: "f0e1", want: tabstate.ErrInvalidArgument},
		{ref: "fe1", want: tabstate.ErrInvalidArgument},
		{ref: "f1", want: tabstate.ErrInvalidArgument},
		{ref: "f1e", want: tabstate.ErrInvalidArgument},
		{ref: "E1", want: tabstate.ErrInvalidArgument},
		{ref: " e1", want: tabstate.ErrInvalidArgument},
		{ref: "e-1", want: tabstate.ErrInvalidArgument},
		{ref: "e99999999999999999999999", want: tabstate.ErrInvalidArgument},
	}
	for _, tt := range tests {
		frame, local, err := fx.tab.RefTarget(tt.ref)
		if !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
			t.Errorf("RefTarget(%q) error = %v; want %v", tt.ref, err, tt.want)
			continue
		}
		if frame != "" || local != tt.local {
			t.Errorf("RefTarget(%q) = %q, %q; want \"\", %q", tt.ref, frame, local, tt.local)
		}
	}
}
