-- +goose Up
-- A supplier's upload link (issue 29): the buyer mails a registered supplier a link to a
-- page where the supplier, without an account, uploads invoices to this buyer only. Only
-- the SHA-256 of the link's random token is kept (the token lives in the mail); a new
-- link for a supplier revokes its earlier one, and a link expires.
CREATE TABLE supplier_upload_links (
    id           BIGSERIAL PRIMARY KEY,
    buyer_id     BIGINT NOT NULL REFERENCES buyers (id) ON DELETE CASCADE,
    supplier_id  BIGINT NOT NULL REFERENCES suppliers (id),
    token_sha256 BYTEA NOT NULL UNIQUE CHECK (length(token_sha256) = 32),
    email        TEXT NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
    created_by   BIGINT,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at   TIMESTAMPTZ NOT NULL,
    revoked_at   TIMESTAMPTZ,
    uploads      INT NOT NULL DEFAULT 0 CHECK (uploads >= 0),
    last_used_at TIMESTAMPTZ,
    CHECK (expires_at > created_at)
);
CREATE UNIQUE INDEX supplier_upload_links_active_idx ON supplier_upload_links (supplier_id) WHERE revoked_at IS NULL;
CREATE INDEX supplier_upload_links_buyer_idx ON supplier_upload_links (buyer_id, supplier_id, id DESC);

-- +goose Down
DROP TABLE supplier_upload_links;
