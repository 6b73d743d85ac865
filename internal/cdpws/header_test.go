package cdpws_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/cdpws"
)

// TestHeader: a pool that takes its key in an Authorization header gets
// it on the /json/version request and on the WebSocket handshake; without
// it, the answer is the pool's 401, and no error quotes the key.
func TestHeader(t *testing.T) {
	t.Parallel()
	e := startEndpoint(t, endpointOptions{bearer: true})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	header := http.Header{"Authorization": {"Bearer " + token}}

	ws, err := cdpws.ResolveURL(ctx, "http://"+e.host, header)
	require.NoError(t, err)
	assert.Equal(t, "ws://"+e.host+"/devtools/browser/abc", ws)
	conn, err := cdpws.Dial(ctx, ws, header)
	require.NoError(t, err, "the handshake carries the header")
	msg, err := conn.ReadText()
	require.NoError(t, err)
	assert.JSONEq(t, `{"query":""}`, string(msg))
	require.NoError(t, conn.Close())

	wrong := http.Header{"Authorization": {"Bearer " + token + "-but-wrong"}}
	_, err = cdpws.ResolveURL(ctx, "http://"+e.host, wrong)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "status 401 Unauthorized")
	assertRedacted(t, err)
	_, err = cdpws.Dial(ctx, ws, wrong)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "401")
	assertRedacted(t, err)
}
