package views

// InvoiceUploadProps are the invoice-upload island's props
// (islands/invoice-upload/InvoiceUpload.tsx InvoiceUploadProps; example-props.json is
// written from this type by a test). The payment journey and the card-payment request
// journey both upload an invoice with it.
type InvoiceUploadProps struct {
	// UploadURL receives the file (POST multipart, the API's cookie mode).
	UploadURL string `json:"uploadUrl"`
	// FilePath is the API path of a file without its id, for the island's API client.
	FilePath string `json:"filePath"`
	// ResultPath is the file's page without its id.
	ResultPath string `json:"resultPath"`
	FieldName  string `json:"fieldName"`
	// Error is the refusal of the last no-JavaScript post, shown under the field.
	Error    string `json:"error"`
	IconHref string `json:"iconHref"`
}
