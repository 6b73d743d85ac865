package otelguard

import (
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestErrorTypesNameEverySentinel holds that error.type names each
// sentinel tabstate exports, as its recorded API lists them: a sentinel
// added without a name would read _OTHER.
func TestErrorTypesNameEverySentinel(t *testing.T) {
	api, err := os.ReadFile("../api/tabstate.txt")
	require.NoError(t, err)
	names := map[string]bool{}
	for _, name := range errorTypes {
		names[name] = true
	}
	sentinels := regexp.MustCompile(`(?m)^var (Err\w+) error$`).FindAllStringSubmatch(string(api), -1)
	require.NotEmpty(t, sentinels)
	for _, m := range sentinels {
		assert.True(t, names[m[1]], "tabstate.%s has no error.type", m[1])
	}
}
