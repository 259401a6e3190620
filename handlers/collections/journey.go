package collections

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"slices"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/links"
	"cardpay/handlers/web"
	"cardpay/invoices"
	"cardpay/views"
)

// journey is the request journey's answers (invoices.RequestFlow, SPEC.md §3 collection
// flow data) with the pages' rule about which step comes next. They live in the session
// while the requester moves between the steps, and as a draft's data when saved.
type journey struct {
	invoices.RequestFlow
}

// Journey keeps the journey in the session; routes.go leaves it when a page outside the
// journey and its upload page is opened (SPEC.md §2).
var Journey = web.Wizard[journey]{Workflow: web.Workflow{
	Prefix: "/collections/add/", SessionKey: "collection_journey", Also: []string{CreatePage.Path},
}}

// Paths of the journey's steps.
const (
	InvoiceStepPath = links.RequestInvoiceStep
	BankStepPath    = links.RequestBankStep
	NewBankPath     = links.RequestNewBankStep
	ConfirmPath     = links.RequestConfirm
	CompletePath    = "/collections/complete"
)

var steps = []string{InvoiceStepPath, BankStepPath, NewBankPath, ConfirmPath}

// missingStep is where the journey must go before path can be shown: the first step
// whose answer is missing, or "".
func (j journey) missingStep(path string) string {
	at := slices.Index(steps, path)
	switch {
	case at > 0 && !j.RequestDone:
		return InvoiceStepPath
	case at > slices.Index(steps, NewBankPath) && !j.BankDone:
		return BankStepPath
	}
	return ""
}

func (h *Handler) load(c *echo.Context, path string) (journey, string) {
	j := Journey.Load(h.Sessions, c)
	return j, j.missingStep(path)
}

func (h *Handler) save(c *echo.Context, j journey) error { return Journey.Save(h.Sessions, c, j) }

// wantsDraft says whether the step's form was sent with 下書き保存.
func wantsDraft(c *echo.Context) bool { return c.FormValue("action") == "draft" }

// saveDraft keeps the journey as one of the requester's drafts at step and goes to the
// drafts list; nothing is validated.
func (h *Handler) saveDraft(c *echo.Context, j journey, step string) error {
	if _, err := h.Requests.SaveDraft(c.Request().Context(), web.CurrentUser(c).BuyerID, j.DraftID, j.RequestFlow, step); err != nil {
		return err
	}
	Journey.Clear(h.Sessions, c)
	h.SetFlash(c, views.Flash{Color: "success", Title: "下書きを保存しました", Text: "「下書き」の一覧から続きを入力できます。"})
	return c.Redirect(http.StatusSeeOther, DraftsPage.Path)
}

func newSubmitKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
