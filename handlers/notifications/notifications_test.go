package notifications_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
	"cardpay/pay"
)

func TestNotificationsTwentyAPageNewestFirstReadWhenOpened(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	empty := c.Get("/notifications")
	require.Equal(t, http.StatusOK, empty.StatusCode)
	assert.Contains(t, empty.Body, "お知らせはありません")
	assert.NotContains(t, empty.Body, "お知らせ（未読があります）")

	var ids []int64
	for i := 1; i <= 25; i++ {
		id, err := webtest.Store().CreateNotification(context.Background(), u.BuyerID, fmt.Sprintf("お知らせ第%02d号", i), "本文\n二行目")
		require.NoError(t, err)
		ids = append(ids, id)
	}
	first := c.Get("/notifications")
	require.Equal(t, http.StatusOK, first.StatusCode)
	assert.Equal(t, 20, strings.Count(first.Body, `class="notice-list__title"`))
	assert.Contains(t, first.Body, "お知らせ第25号")
	assert.NotContains(t, first.Body, "お知らせ第05号")
	assert.Less(t, strings.Index(first.Body, "お知らせ第25号"), strings.Index(first.Body, "お知らせ第24号"), "newest first")
	assert.Contains(t, first.Body, "未読のお知らせが25件あります")
	assert.Contains(t, first.Body, "お知らせ（未読があります）")
	second := c.Get("/notifications?page=2")
	assert.Equal(t, 5, strings.Count(second.Body, `class="notice-list__title"`))
	assert.Contains(t, second.Body, "お知らせ第01号")
	res := c.Get("/notifications?page=9")
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/notifications?page=2", res.Header.Get("Location"))

	// Opening one marks it read; its lines are paragraphs.
	one := c.Get(fmt.Sprintf("/notifications/%d", ids[0]))
	require.Equal(t, http.StatusOK, one.StatusCode)
	assert.Contains(t, one.Body, "<p>二行目</p>")
	assert.Contains(t, c.Get("/notifications").Body, "未読のお知らせが24件あります")
	assert.Equal(t, http.StatusNotFound, c.Get("/notifications/999999999").StatusCode)
	assert.Equal(t, http.StatusNotFound, c.Get("/notifications/abc").StatusCode)
}
