// Package suppliers holds the pages of 登録取引先 (handlers/suppliers): the list, one
// supplier with its bank accounts, the add-supplier wizard, the bank-account form the
// wizard and the bank-account pages share (the supplier-account island's fallback), the
// delete confirmation and a supplier's payment history.
package suppliers
