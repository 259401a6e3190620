package ops_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/cards"
	"cardpay/handlers/webtest"
	"cardpay/pay"
	"cardpay/store"
)

// lockCards gives the buyer the day's declined card checks through the store's own
// path (a check finished as declined, counted), until adding cards is locked.
func lockCards(t *testing.T, env *webtest.Env, buyerID int64) {
	t.Helper()
	ctx := context.Background()
	st := webtest.Store()
	for i := range cards.DeclineLimit {
		cc, err := st.CreateCardCheck(ctx, buyerID, store.NewCard{Gateway: "sandbox", Ref: fmt.Sprintf("card_lock_%d", i), Brand: pay.BrandVISA,
			Last4: "9979", ExpMonth: 12, ExpYear: 2030, Fingerprint: fmt.Sprintf("fp_lock_%d_%d", buyerID, i)})
		require.NoError(t, err)
		_, err = st.FinishCardCheck(ctx, buyerID, cc.PaymentID, store.CardCheckOutcome{ResultCode: "G042",
			Decline: &store.DeclineCount{Day: cards.Day(env.App.Now()), Limit: cards.DeclineLimit}}, env.App.Now())
		require.NoError(t, err)
	}
	locked, err := env.App.Cards.Locked(ctx, buyerID)
	require.NoError(t, err)
	require.True(t, locked)
}

func TestLocksPageListsAndUnlocks(t *testing.T) {
	env := webtest.New(t)
	buyer := webtest.NewBuyer(t, pay.Corporation, "")
	lockCards(t, env, buyer.BuyerID)
	unlockPath := fmt.Sprintf("/ops/locks/%d/unlock", buyer.BuyerID)

	// Transfers and admin operators do not see the page (the screening role's).
	for _, role := range []string{pay.RoleTransfers, pay.RoleAdmin} {
		c := signIn(t, env, newOperator(t, env, role))
		assert.Equal(t, http.StatusForbidden, c.Get("/ops/locks").StatusCode, role)
		assert.Equal(t, http.StatusForbidden, c.Post(unlockPath, url.Values{"reason": {"x"}}).StatusCode, role)
	}

	op := newOperator(t, env, pay.RoleScreening)
	c := signIn(t, env, op)
	page := c.Get("/ops/locks")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "テスト商事株式会社")
	assert.Contains(t, page.Body, fmt.Sprintf("%d回", cards.DeclineLimit))
	assert.Contains(t, page.Body, `action="`+unlockPath+`"`)
	assert.Contains(t, page.Body, `href="/ops/locks"`, "the screening tabs link the page")

	// No reason: the page again with the error under that buyer's field; still locked.
	res := c.Post(unlockPath, url.Values{"reason": {"  "}})
	webtest.AssertFieldError(t, res, fmt.Sprintf("reason-%d", buyer.BuyerID), "解除の理由を入力してください")
	res = c.Post(unlockPath, url.Values{"reason": {strings.Repeat("長", 201)}})
	webtest.AssertFieldError(t, res, fmt.Sprintf("reason-%d", buyer.BuyerID), "解除の理由は200文字以内で入力してください")
	locked, err := env.App.Cards.Locked(context.Background(), buyer.BuyerID)
	require.NoError(t, err)
	assert.True(t, locked)
	// Nonsense ids are the 404 page, an unlocked buyer a notice: never a 500.
	assert.Equal(t, http.StatusNotFound, c.Post("/ops/locks/abc/unlock", url.Values{"reason": {"x"}}).StatusCode)
	assert.Equal(t, http.StatusSeeOther, c.Post("/ops/locks/999999999/unlock", url.Values{"reason": {"x"}}).StatusCode)

	res = c.Post(unlockPath, url.Values{"reason": {"電話で本人確認済み"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	page = c.Get("/ops/locks")
	assert.Contains(t, page.Body, "カード追加の停止を解除しました")
	assert.Contains(t, page.Body, "カードの追加を停止している購入者はいません")
	locked, err = env.App.Cards.Locked(context.Background(), buyer.BuyerID)
	require.NoError(t, err)
	assert.False(t, locked)

	// Once: a second unlock (another tab) changes nothing and says so.
	res = c.Post(unlockPath, url.Values{"reason": {"二度目"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Contains(t, c.Get("/ops/locks").Body, "この購入者のカード追加は停止されていません")
	audit, _, err := webtest.Store().AuditLog(context.Background(), store.AuditFilter{ObjectType: store.AuditBuyer, ObjectID: buyer.BuyerID, Limit: 10})
	require.NoError(t, err)
	require.Len(t, audit, 1, "one audit row for the one unlock")
	assert.Equal(t, op.ID, audit[0].OperatorID)
	assert.Equal(t, "電話で本人確認済み", audit[0].Reason)
	auditPage := c.Get("/ops/audit?object=buyer")
	assert.Contains(t, auditPage.Body, "カード追加の停止の解除")
	assert.Contains(t, auditPage.Body, fmt.Sprintf("購入者 #%d", buyer.BuyerID))
}
