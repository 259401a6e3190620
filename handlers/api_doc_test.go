package handlers

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/api"
)

// Every /api/v1 route the app serves is in the OpenAPI document, and nothing else is.
func TestAPIRoutesAreDocumented(t *testing.T) {
	undocumented, unserved, err := api.DocumentationGaps(newTestApp(t).echo.Router().Routes())
	require.NoError(t, err)
	assert.Empty(t, undocumented)
	assert.Empty(t, unserved)
}
