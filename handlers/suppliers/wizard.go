package suppliers

import (
	"cardpay/handlers/web"
	"cardpay/pay"
)

// addAnswers are the add-supplier wizard's answers so far. Company and BankAccount are
// set only once their step validated, so the confirm page can trust them after checking
// again.
type addAnswers struct {
	Supplier        pay.SupplierInput `json:"supplier"`
	CompanyDone     bool              `json:"company_done"`
	BankAccount     pay.AccountInput  `json:"account"`
	BankAccountDone bool              `json:"account_done"`
}

// AddWizard keeps the add-supplier wizard's answers in the session (DESIGN.md §2
// wizards); routes.go leaves it when a page outside /suppliers/add/ is opened.
var AddWizard = web.Wizard[addAnswers]{Workflow: web.Workflow{Prefix: "/suppliers/add/", SessionKey: "supplier_wizard"}}
