package chromedpguard_test

import (
	"encoding/json"
	"reflect"
	"testing"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
	"github.com/tabguard/tabguard/internal/enginetest"
)

// TestEngineMessagesBothEncoders holds that every command the engine sends,
// and every answer it reads, means the same through rod's encoding/json and
// chromedp's jsonv2 with its options, which treat omitempty, nil slices and
// field-name case differently.
func TestEngineMessagesBothEncoders(t *testing.T) {
	calls := enginetest.Messages(t)
	for _, c := range calls {
		t.Run(c.Method, func(t *testing.T) {
			if c.Value != nil {
				v2, err := jsonv2.Marshal(c.Value, chromedp.DefaultMarshalOptions)
				if err != nil {
					t.Fatalf("jsonv2.Marshal(%#v): %v", c.Value, err)
				}
				if diff := cmp.Diff(decode(t, c.Params), decode(t, v2)); diff != "" {
					t.Errorf("params of %s differ (-encoding/json +jsonv2):\n%s", c.Method, diff)
				}
			}
			if c.Result == nil || c.ResultJSON == nil {
				return
			}
			typ := reflect.TypeOf(c.Result).Elem()
			v1, v2 := reflect.New(typ).Interface(), reflect.New(typ).Interface()
			if err := json.Unmarshal(c.ResultJSON, v1); err != nil {
				t.Fatalf("json.Unmarshal(%s): %v", c.ResultJSON, err)
			}
			if err := jsonv2.Unmarshal(c.ResultJSON, v2, chromedp.DefaultUnmarshalOptions); err != nil {
				t.Fatalf("jsonv2.Unmarshal(%s): %v", c.ResultJSON, err)
			}
			if diff := cmp.Diff(v1, v2); diff != "" {
				t.Errorf("answer of %s reads differently (-encoding/json +jsonv2):\n%s", c.Method, diff)
			}
		})
	}
}

// decode reads JSON into generic values, so two encodings compare by meaning.
func decode(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("json.Unmarshal(%s): %v", data, err)
	}
	return v
}
