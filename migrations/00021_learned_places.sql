-- +goose Up
-- Where a supplier prints its invoices' changing values (issue 28, "the field positions
-- guide the crops"). A file's reading keeps its lines with their boxes on the page
-- (invoiceread.MarshalLines; '[]' for a PDF's text layer and for files read before), so
-- that when the file is paid the values submitted can be found on it
-- (invoiceread.Learn); the supplier's history keeps where they were
-- (invoiceread.Place: the text printed before each and the value's box from it), and
-- the next invoice of the supplier reads a missed amount or date from there.
ALTER TABLE invoice_files ADD COLUMN ocr_lines JSONB NOT NULL DEFAULT '[]';
ALTER TABLE supplier_histories ADD COLUMN places JSONB NOT NULL DEFAULT '[]';

-- +goose Down
ALTER TABLE supplier_histories DROP COLUMN places;
ALTER TABLE invoice_files DROP COLUMN ocr_lines;
