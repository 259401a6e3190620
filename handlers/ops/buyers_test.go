package ops_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/handlers/webtest"
	"cardpay/pay"
	"cardpay/store"
)

var numberSeq atomic.Int64

// freshNumber is a valid corporate number no other test uses.
func freshNumber(t *testing.T) string {
	t.Helper()
	base := fmt.Sprintf("%012d", 700000000000+time.Now().UnixNano()%1e8*100+numberSeq.Add(1)%100)
	d, ok := pay.CorporateCheckDigit(base)
	require.True(t, ok)
	return strconv.Itoa(d) + base
}

// heldBuyer creates a corporation held for review with reason.
func heldBuyer(t *testing.T, name, number, reason string) store.User {
	t.Helper()
	u, err := webtest.Store().CreateBuyer(context.Background(), store.NewBuyer{
		BusinessForm: pay.Corporation, CorporateName: name, CorporateNumber: number,
		EmailAddress: fmt.Sprintf("held-%d-%d@test.example", numberSeq.Add(1), time.Now().UnixNano()%1e6),
		PasswordHash: webtest.PasswordHash(), LastName: "偽", FirstName: "太郎", TermsVersion: account.TermsVersion,
		ReviewStatus: pay.BuyerHeld, ReviewReason: reason,
		Details: store.BuyerDetails{AddressState: "大阪府", AddressCity: "大阪市北区", AddressStreet: "梅田1-1", TransferPersonName: "ニセ"},
	})
	require.NoError(t, err)
	return u
}

func reviewOf(t *testing.T, buyerID int64) pay.BuyerReview {
	t.Helper()
	st, err := webtest.Store().BuyerReviewStatus(context.Background(), buyerID)
	require.NoError(t, err)
	return st
}

func buyerAudits(t *testing.T, buyerID int64) int {
	t.Helper()
	var n int
	require.NoError(t, webtest.Store().DB.Get(&n, `SELECT count(*) FROM operator_audit WHERE object_type = 'buyer' AND object_id = $1`, buyerID))
	return n
}

func TestHeldBuyersAreApprovedOrRejectedWithAReasonAndAnAuditRow(t *testing.T) {
	env := webtest.New(t)
	number := freshNumber(t)
	holder := webtest.NewBuyer(t, pay.Corporation, number)
	claim := heldBuyer(t, "なりすまし商事株式会社", number, pay.HoldNumberTaken)
	unknown := heldBuyer(t, "未登記商事株式会社", freshNumber(t), pay.HoldRegistryUnknown)
	op := signIn(t, env, newOperator(t, env, pay.RoleScreening))

	// The list has both, with their reasons; the nav links to it.
	res := op.Get("/ops/buyers")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.Body, `href="/ops/buyers"`)
	assert.Contains(t, res.Body, "なりすまし商事株式会社")
	assert.Contains(t, res.Body, "未登記商事株式会社")
	assert.Contains(t, res.Body, pay.HoldReasonLabel(pay.HoldNumberTaken))
	assert.Contains(t, res.Body, pay.HoldReasonLabel(pay.HoldRegistryUnknown))

	// A number_taken claim shows the account already holding the number beside it.
	path := fmt.Sprintf("/ops/buyers/%d", claim.BuyerID)
	res = op.Get(path)
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.Body, "なりすまし商事株式会社")
	assert.Contains(t, res.Body, "同じ法人番号のほかのアカウント")
	assert.Contains(t, res.Body, holder.EmailAddress)
	assert.Contains(t, res.Body, "テスト商事株式会社")
	assert.Contains(t, res.Body, claim.EmailAddress)

	// Refusals change nothing.
	res = op.Post(path, url.Values{"status": {"active"}})
	webtest.AssertFieldError(t, res, "reason", account.MsgBuyerReviewReason)
	res = op.Post(path, url.Values{"status": {"held"}, "reason": {"x"}})
	webtest.AssertFieldError(t, res, "status", account.MsgBuyerReviewTarget)
	assert.Equal(t, pay.BuyerHeld, reviewOf(t, claim.BuyerID))
	assert.Equal(t, 0, buyerAudits(t, claim.BuyerID))

	// Reject the claim: rejected, one audit row, the buyer told.
	res = op.Post(path, url.Values{"status": {"rejected"}, "reason": {"登記の連絡先に確認したところ、登録に覚えがないとのこと"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/ops/buyers", res.Header.Get("Location"))
	assert.Equal(t, pay.BuyerRejected, reviewOf(t, claim.BuyerID))
	assert.Equal(t, 1, buyerAudits(t, claim.BuyerID))
	assert.Equal(t, pay.BuyerActive, reviewOf(t, holder.BuyerID), "the holder is untouched")
	// A second decision (another operator's stale page) is refused.
	// The form is gone; the summary links to the sentence saying the review is over.
	res = op.Post(path, url.Values{"status": {"active"}, "reason": {"確認済み"}})
	assert.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	assert.Contains(t, res.Body, `<a href="#status">`+account.MsgBuyerReviewMoved)
	assert.Contains(t, res.Body, `id="status"`)
	assert.Equal(t, pay.BuyerRejected, reviewOf(t, claim.BuyerID))
	assert.Equal(t, 1, buyerAudits(t, claim.BuyerID))
	assert.Contains(t, op.Get(path).Body, "このアカウントの確認は終わっています")

	// Approve the unknown number: active, audited, gone from the list.
	res = op.Post(fmt.Sprintf("/ops/buyers/%d", unknown.BuyerID), url.Values{"status": {"active"}, "reason": {"登記事項証明書で確認"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, pay.BuyerActive, reviewOf(t, unknown.BuyerID))
	assert.Equal(t, 1, buyerAudits(t, unknown.BuyerID))
	res = op.Get("/ops/buyers")
	assert.NotContains(t, res.Body, "未登記商事株式会社")
	assert.NotContains(t, res.Body, "なりすまし商事株式会社")

	// The buyers see the outcome: a banner for the refused one, none for the approved.
	c := env.Client(t)
	c.SignIn(claim.EmailAddress)
	assert.Contains(t, c.Get("/myaccount").Body, "このアカウントはご利用いただけません")
	c = env.Client(t)
	c.SignIn(unknown.EmailAddress)
	assert.NotContains(t, c.Get("/myaccount").Body, `id="review-banner"`)
}

func TestOnlyScreeningOperatorsReviewBuyers(t *testing.T) {
	env := webtest.New(t)
	held := heldBuyer(t, "権限確認商事株式会社", freshNumber(t), pay.HoldRegistryUnavailable)
	transfers := signIn(t, env, newOperator(t, env, pay.RoleTransfers))
	assert.Equal(t, http.StatusForbidden, transfers.Get("/ops/buyers").StatusCode)
	path := fmt.Sprintf("/ops/buyers/%d", held.BuyerID)
	assert.Equal(t, http.StatusForbidden, transfers.Get(path).StatusCode)
	assert.Equal(t, http.StatusForbidden, transfers.Post(path, url.Values{"status": {"active"}, "reason": {"x"}}).StatusCode)
	assert.Equal(t, pay.BuyerHeld, reviewOf(t, held.BuyerID))
	// An unknown or sole proprietor's id is not found.
	screener := signIn(t, env, newOperator(t, env, pay.RoleScreening))
	assert.Equal(t, http.StatusNotFound, screener.Get("/ops/buyers/999999999").StatusCode)
	sole := webtest.NewBuyer(t, pay.SoleProprietor, "")
	assert.Equal(t, http.StatusNotFound, screener.Get(fmt.Sprintf("/ops/buyers/%d", sole.BuyerID)).StatusCode)
	// The held buyer's own pages say the account is being reviewed.
	c := env.Client(t)
	c.SignIn(held.EmailAddress)
	assert.Contains(t, c.Get("/myaccount").Body, "アカウントの確認中です")
}
