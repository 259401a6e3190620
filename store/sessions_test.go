package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The session store saves, finds, replaces and deletes a session by its token, and never
// answers an expired one.
func TestSessionStoreFindsOnlyLiveSessions(t *testing.T) {
	ctx := context.Background()
	ss := db.Store.Sessions(0)
	require.NoError(t, ss.CommitCtx(ctx, "live-token", []byte("one"), time.Now().Add(time.Hour)))
	require.NoError(t, ss.CommitCtx(ctx, "old-token", []byte("old"), time.Now().Add(-time.Second)))

	b, found, err := ss.FindCtx(ctx, "live-token")
	require.NoError(t, err)
	assert.True(t, found)
	assert.Equal(t, "one", string(b))
	_, found, err = ss.FindCtx(ctx, "old-token")
	require.NoError(t, err)
	assert.False(t, found, "expired")
	_, found, err = ss.FindCtx(ctx, "no-such-token")
	require.NoError(t, err)
	assert.False(t, found)

	require.NoError(t, ss.CommitCtx(ctx, "live-token", []byte("two"), time.Now().Add(time.Hour)))
	b, _, err = ss.FindCtx(ctx, "live-token")
	require.NoError(t, err)
	assert.Equal(t, "two", string(b), "saved again: replaced")

	require.NoError(t, ss.DeleteCtx(ctx, "live-token"))
	_, found, err = ss.FindCtx(ctx, "live-token")
	require.NoError(t, err)
	assert.False(t, found, "deleted")
}
