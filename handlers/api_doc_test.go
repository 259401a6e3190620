package handlers_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
)

// Every /api/v1 route the app serves is in the OpenAPI document, and nothing else is.
func TestAPIRoutesAreDocumented(t *testing.T) {
	undocumented, unserved, err := webtest.APIDocumentationGaps(webtest.New(t).Echo.Router().Routes())
	require.NoError(t, err)
	assert.Empty(t, undocumented)
	assert.Empty(t, unserved)
}
