package cdpws_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/tabguard/tabguard/internal/cdpws"
)

// RedactedError tells its URL, and every URL the error beneath quotes,
// without query string, fragment or user info.
func TestRedactedError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  cdpws.RedactedError
		want string
	}{
		{
			name: "query",
			err:  cdpws.RedactedError{URL: "ws://h:1/x?token=secret", Err: errors.New(`Get "http://h:1/x?token=secret": EOF`)},
			want: `connect to ws://h:1/x?…: Get "http://h:1/x?…": EOF`,
		},
		{
			name: "user info, as net/http strips only the password",
			err: cdpws.RedactedError{
				URL: "ws://alice:hunter2@h:1/x?token=secret",
				Err: errors.New(`failed to WebSocket dial: failed to send handshake request: Get "http://alice:***@h:1/x?token=secret": dial tcp h:1: connect: connection refused`),
			},
			want: `connect to ws://…@h:1/x?…: failed to WebSocket dial: failed to send handshake request: Get "http://…@h:1/x?…": dial tcp h:1: connect: connection refused`,
		},
		{
			name: "op, and a URL that is not the endpoint's",
			err: cdpws.RedactedError{
				Op:  "resolve",
				URL: "http://h:1/json/version?token=secret",
				Err: errors.New(`Get "https://pool.example/login?next=x&token=other#frag": redirect refused`),
			},
			want: `resolve http://h:1/json/version?…: Get "https://pool.example/login?…": redirect refused`,
		},
		{
			name: "an unquoted URL ends before the sentence's punctuation",
			err:  cdpws.RedactedError{URL: "ws://h:1/x", Err: errors.New(`dial ws://u:p@h:1/x?token=secret: refused`)},
			want: `connect to ws://h:1/x: dial ws://…@h:1/x?…: refused`,
		},
		{
			name: "the query where no URL is",
			err:  cdpws.RedactedError{URL: "ws://h:1/x?token=secret", Err: errors.New(`bad query token=secret`)},
			want: `connect to ws://h:1/x?…: bad query …`,
		},
		{
			name: "a quote escaped in a quoted URL",
			err:  cdpws.RedactedError{URL: "ws://h:1/x", Err: errors.New(`parse "ws://h:1/x?a=\"b\"&token=secret": bad`)},
			want: `connect to ws://h:1/x: parse "ws://h:1/x?…": bad`,
		},
		{
			name: "nothing to redact",
			err:  cdpws.RedactedError{URL: "ws://h:1/x", Err: errors.New("context deadline exceeded")},
			want: `connect to ws://h:1/x: context deadline exceeded`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.err.Error())
		})
	}
}
