-- +goose Up
-- Invoice files a buyer uploaded (issue 11). The bytes live in the file store
-- (files.Local or files.S3) under storage_key, a random server-made name; the row keeps
-- what the buyer and the screening need: the original name (shown, never used as a
-- path), size, the media type found in the bytes, their SHA-256 and the page count.
-- A file never changes: a later version is a new row. locked_at is set when a payment
-- that uses the file is submitted, after which not even the lock moves (trigger below).
--
-- ocr_status: pending (job queued) → running → done | failed | unavailable (a tool is
-- missing: the buyer types the fields). ocr_fields holds what was read, each field with
-- its value and confidence (JSON written by the OCR job); ocr_text the whole text read;
-- ocr_ms how long the reading took.
CREATE TABLE invoice_files (
    id            BIGSERIAL PRIMARY KEY,
    buyer_id      BIGINT NOT NULL REFERENCES buyers (id) ON DELETE CASCADE,
    storage_key   TEXT NOT NULL UNIQUE CHECK (storage_key <> ''),
    original_name TEXT NOT NULL,
    size          BIGINT NOT NULL CHECK (size > 0),
    media_type    TEXT NOT NULL CHECK (media_type IN ('application/pdf', 'image/jpeg', 'image/png')),
    sha256        TEXT NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    pages         INT NOT NULL DEFAULT 0 CHECK (pages >= 0),
    ocr_status    TEXT NOT NULL DEFAULT 'pending'
        CHECK (ocr_status IN ('pending', 'running', 'done', 'failed', 'unavailable')),
    ocr_fields    JSONB NOT NULL DEFAULT '{}',
    ocr_text      TEXT NOT NULL DEFAULT '',
    ocr_error     TEXT NOT NULL DEFAULT '',
    ocr_ms        INT NOT NULL DEFAULT 0 CHECK (ocr_ms >= 0),
    locked_at     TIMESTAMPTZ,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX invoice_files_buyer_idx ON invoice_files (buyer_id, id);

-- The file itself is fixed from the insert, and the lock once set: an UPDATE that would
-- change either fails, whatever code runs it. The OCR columns stay writable, since
-- reading can finish after the payment was submitted.
-- +goose StatementBegin
CREATE FUNCTION invoice_files_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.buyer_id <> OLD.buyer_id OR NEW.storage_key <> OLD.storage_key
        OR NEW.original_name <> OLD.original_name OR NEW.size <> OLD.size
        OR NEW.media_type <> OLD.media_type OR NEW.sha256 <> OLD.sha256
        OR NEW.pages <> OLD.pages OR NEW.created_at <> OLD.created_at
        OR (OLD.locked_at IS NOT NULL AND NEW.locked_at IS DISTINCT FROM OLD.locked_at) THEN
        RAISE EXCEPTION 'invoice file % is fixed once stored', OLD.id USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER invoice_files_fixed BEFORE UPDATE ON invoice_files
    FOR EACH ROW EXECUTE FUNCTION invoice_files_fixed();

-- +goose Down
DROP TABLE invoice_files;
DROP FUNCTION invoice_files_fixed();
