package banks

// Directory answers bank and branch names for pay.AccountInput.Check from the embedded
// zengin data, so the domain rules stay free of the data's loading.
type Directory struct{}

// BankName is the display name of the bank with code.
func (Directory) BankName(code string) (string, bool) {
	b, ok := ByCode(code)
	return b.Name, ok
}

// BranchName is the name of a branch of the bank with bankCode.
func (Directory) BranchName(bankCode, branchCode string) (string, bool) {
	br, ok := BranchByCode(bankCode, branchCode)
	return br.Name, ok
}
