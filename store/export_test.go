package store

// InTx lets the external tests exercise the transaction helper.
var InTx = (*Store).inTx
