-- +goose Up
-- Received invoices (issue 29, SPEC.md's receipt invoice flows): suppliers' invoices that
-- reach a buyer by the buyer's own upload, by mail to the buyer's receiving address, or
-- through a supplier's upload link. The file itself is an invoice_files row (read by the
-- OCR job as the payment journey's are); this row says where it came from and what the
-- buyer decided about it.
--
-- 電子帳簿保存法 (電子取引データの保存): the file is kept unchanged (invoice_files_fixed)
-- until retain_until, at least seven years after the end of the fiscal year it was
-- received in and the filing deadline after it; until then neither row can be deleted
-- (triggers below; the foreign keys have no cascade, so a buyer with received invoices
-- cannot be deleted either). The search keys the law asks for (取引年月日, 取引金額,
-- 取引先) are the reading's until the buyer corrects them; each correction keeps the
-- earlier values in received_invoice_events with who and when.
--
-- disposition is what the buyer marked: open (nothing), paid_elsewhere or not_to_pay,
-- with the reason. Whether it is being paid or was paid here is not stored: it is the
-- state of the payment made from the same file (invoices.file_id), so the two cannot
-- disagree (pay.ReceivedStateOf).
CREATE TABLE received_invoices (
    id                  BIGSERIAL PRIMARY KEY,
    buyer_id            BIGINT NOT NULL REFERENCES buyers (id),
    file_id             BIGINT NOT NULL UNIQUE REFERENCES invoice_files (id),
    source              TEXT NOT NULL CHECK (source IN ('upload', 'mail', 'supplier_link')),
    -- The mail's sender and subject, or the supplier's name on its upload link.
    sender              TEXT NOT NULL DEFAULT '' CHECK (length(sender) <= 320),
    subject             TEXT NOT NULL DEFAULT '' CHECK (length(subject) <= 500),
    -- The receiving MTA's Authentication-Results verdicts: pass, fail or none each.
    auth_spf            TEXT NOT NULL DEFAULT 'none' CHECK (auth_spf IN ('pass', 'fail', 'none')),
    auth_dkim           TEXT NOT NULL DEFAULT 'none' CHECK (auth_dkim IN ('pass', 'fail', 'none')),
    auth_dmarc          TEXT NOT NULL DEFAULT 'none' CHECK (auth_dmarc IN ('pass', 'fail', 'none')),
    new_sender          BOOLEAN NOT NULL DEFAULT false,
    disposition         TEXT NOT NULL DEFAULT 'open'
        CHECK (disposition IN ('open', 'paid_elsewhere', 'not_to_pay')),
    disposition_reason  TEXT NOT NULL DEFAULT '' CHECK (length(disposition_reason) <= 500),
    -- The buyer's corrections of the reading (NULL / '': the reading's value stands).
    transaction_date    DATE,
    due_date            DATE,
    amount              BIGINT CHECK (amount > 0),
    counterparty        TEXT NOT NULL DEFAULT '' CHECK (length(counterparty) <= 200),
    registration_number TEXT NOT NULL DEFAULT '' CHECK (registration_number = '' OR registration_number ~ '^T[0-9]{13}$'),
    invoice_number      TEXT NOT NULL DEFAULT '' CHECK (length(invoice_number) <= 100),
    retain_until        DATE NOT NULL,
    received_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
    CHECK (retain_until >= (received_at AT TIME ZONE 'Asia/Tokyo')::date + INTERVAL '7 years')
);
CREATE INDEX received_invoices_buyer_idx ON received_invoices (buyer_id, id DESC);

-- Every event of a received invoice, append-only: received, corrected (before and after),
-- marked (the disposition and its reason), with the user who did it.
CREATE TABLE received_invoice_events (
    id                  BIGSERIAL PRIMARY KEY,
    received_invoice_id BIGINT NOT NULL REFERENCES received_invoices (id),
    buyer_id            BIGINT NOT NULL REFERENCES buyers (id),
    kind                TEXT NOT NULL CHECK (kind IN ('received', 'corrected', 'marked')),
    -- Who: the user's id and name as they were (no foreign key: the record outlives
    -- the user, and an append-only row cannot be nulled).
    user_id             BIGINT,
    actor               TEXT NOT NULL DEFAULT '' CHECK (length(actor) <= 200),
    before              JSONB NOT NULL DEFAULT '{}',
    after               JSONB NOT NULL DEFAULT '{}',
    created_at          TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX received_invoice_events_idx ON received_invoice_events (received_invoice_id, id);

-- The latest payment submitted from a file: one index probe per received invoice,
-- however many payments the buyer has (by buyer, the lateral below scanned them all).
CREATE INDEX invoices_file_idx ON invoices (file_id, id DESC) WHERE file_id IS NOT NULL AND submitted_at IS NOT NULL;

-- received_invoice_views: each received invoice with what its lists, page and search
-- show: the state (pay.ReceivedStateOf, the same rule over every payment submitted from
-- its file: a test holds them together), the latest such payment (its page is linked),
-- and the search keys, the buyer's correction
-- where made, else the reading's (a date or amount the reading found), and for the
-- counterparty the paid supplier's name, the issuer read, or the sender.
CREATE VIEW received_invoice_views AS
SELECT ri.*,
    f.original_name, f.media_type, f.size, f.sha256, f.pages, f.ocr_status,
    p.id AS payment_id, p.examination_status AS payment_status,
    CASE
        WHEN EXISTS (SELECT 1 FROM invoices i WHERE i.file_id = ri.file_id AND i.buyer_id = ri.buyer_id
            AND i.submitted_at IS NOT NULL AND i.examination_status = 4) THEN 'paid'
        WHEN EXISTS (SELECT 1 FROM invoices i WHERE i.file_id = ri.file_id AND i.buyer_id = ri.buyer_id
            AND i.submitted_at IS NOT NULL AND i.examination_status IN (1, 2, 3)) THEN 'scheduled'
        WHEN ri.disposition = 'paid_elsewhere' THEN 'paid'
        WHEN ri.disposition = 'not_to_pay' THEN 'set_aside'
        ELSE 'new'
    END AS state,
    -- by_payment: a payment made here is being screened or was transferred, so its state
    -- is the payment's and the buyer cannot mark it (store.MarkReceivedInvoice).
    EXISTS (SELECT 1 FROM invoices i WHERE i.file_id = ri.file_id AND i.buyer_id = ri.buyer_id
        AND i.submitted_at IS NOT NULL AND i.examination_status IN (1, 2, 3, 4)) AS by_payment,
    COALESCE(ri.transaction_date, CASE WHEN f.ocr_fields->'invoice_date'->>'found' = 'true'
        AND f.ocr_fields->'invoice_date'->>'value' ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'
        THEN (f.ocr_fields->'invoice_date'->>'value')::date END) AS key_date,
    COALESCE(ri.due_date, CASE WHEN f.ocr_fields->'due_date'->>'found' = 'true'
        AND f.ocr_fields->'due_date'->>'value' ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'
        THEN (f.ocr_fields->'due_date'->>'value')::date END) AS key_due_date,
    COALESCE(ri.amount, CASE WHEN f.ocr_fields->'total'->>'found' = 'true'
        AND f.ocr_fields->'total'->>'value' ~ '^[1-9][0-9]{0,14}$'
        THEN (f.ocr_fields->'total'->>'value')::bigint END) AS key_amount,
    COALESCE(NULLIF(ri.counterparty, ''), s.name,
        NULLIF(CASE WHEN f.ocr_fields->'issuer_name'->>'found' = 'true' THEN f.ocr_fields->'issuer_name'->>'value' END, ''),
        ri.sender) AS key_counterparty,
    COALESCE(NULLIF(ri.registration_number, ''),
        CASE WHEN f.ocr_fields->'registration_number'->>'found' = 'true' THEN f.ocr_fields->'registration_number'->>'value' END,
        '') AS key_registration_number
FROM received_invoices ri
JOIN invoice_files f ON f.id = ri.file_id
LEFT JOIN LATERAL (
    SELECT i.id, i.examination_status, i.supplier_id FROM invoices i
    WHERE i.file_id = ri.file_id AND i.buyer_id = ri.buyer_id AND i.submitted_at IS NOT NULL
    ORDER BY i.id DESC LIMIT 1
) p ON true
LEFT JOIN suppliers s ON s.id = p.supplier_id;

-- +goose StatementBegin
CREATE FUNCTION received_invoices_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        RAISE EXCEPTION '% is kept under 電子帳簿保存法: TRUNCATE refused', TG_TABLE_NAME
            USING ERRCODE = 'check_violation';
    END IF;
    IF TG_OP = 'DELETE' AND OLD.retain_until >= current_date THEN
        RAISE EXCEPTION 'received invoice % is kept until % under 電子帳簿保存法', OLD.id, OLD.retain_until
            USING ERRCODE = 'check_violation';
    END IF;
    IF TG_OP = 'UPDATE' AND (NEW.buyer_id <> OLD.buyer_id OR NEW.file_id <> OLD.file_id
        OR NEW.source <> OLD.source OR NEW.sender <> OLD.sender OR NEW.subject <> OLD.subject
        OR NEW.auth_spf <> OLD.auth_spf OR NEW.auth_dkim <> OLD.auth_dkim OR NEW.auth_dmarc <> OLD.auth_dmarc
        OR NEW.retain_until < OLD.retain_until OR NEW.received_at <> OLD.received_at) THEN
        RAISE EXCEPTION 'received invoice % keeps where it came from', OLD.id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END
$$;
CREATE FUNCTION received_invoice_events_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'received_invoice_events is append-only: % refused', TG_OP
        USING ERRCODE = 'check_violation';
END
$$;
-- A received invoice's file is kept as long as the invoice is.
CREATE FUNCTION invoice_files_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM received_invoices WHERE file_id = OLD.id) THEN
        RAISE EXCEPTION 'invoice file % is a received invoice, kept under 電子帳簿保存法', OLD.id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN OLD;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER received_invoices_kept BEFORE UPDATE OR DELETE ON received_invoices
    FOR EACH ROW EXECUTE FUNCTION received_invoices_kept();
CREATE TRIGGER received_invoices_no_truncate BEFORE TRUNCATE ON received_invoices
    FOR EACH STATEMENT EXECUTE FUNCTION received_invoices_kept();
CREATE TRIGGER received_invoice_events_no_change BEFORE UPDATE OR DELETE ON received_invoice_events
    FOR EACH ROW EXECUTE FUNCTION received_invoice_events_kept();
CREATE TRIGGER received_invoice_events_no_truncate BEFORE TRUNCATE ON received_invoice_events
    FOR EACH STATEMENT EXECUTE FUNCTION received_invoice_events_kept();
CREATE TRIGGER invoice_files_kept BEFORE DELETE ON invoice_files
    FOR EACH ROW EXECUTE FUNCTION invoice_files_kept();
CREATE TRIGGER invoice_files_no_truncate BEFORE TRUNCATE ON invoice_files
    FOR EACH STATEMENT EXECUTE FUNCTION received_invoices_kept();

-- +goose Down
DROP TRIGGER invoice_files_no_truncate ON invoice_files;
DROP TRIGGER invoice_files_kept ON invoice_files;
DROP VIEW received_invoice_views;
DROP INDEX invoices_file_idx;
DROP TABLE received_invoice_events;
DROP TABLE received_invoices;
DROP FUNCTION invoice_files_kept();
DROP FUNCTION received_invoice_events_kept();
DROP FUNCTION received_invoices_kept();
