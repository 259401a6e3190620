-- +goose Up
-- A signed upload URL takes one upload (issue 24). The URL is the app's own token
-- (files.Signer, purpose "upload", 10 minutes): its use is recorded here, by the SHA-256
-- of the token, in one INSERT before the body is read, so that of two PUTs with the same
-- URL, however close, one is refused. A refused file gives the URL back (the row is
-- deleted); rows older than a day are pruned by the next use, long after their URL expired.
CREATE TABLE upload_url_uses (
    token_sha256 BYTEA PRIMARY KEY CHECK (length(token_sha256) = 32),
    buyer_id     BIGINT NOT NULL REFERENCES buyers (id) ON DELETE CASCADE,
    used_at      TIMESTAMPTZ NOT NULL
);
CREATE INDEX upload_url_uses_used_at ON upload_url_uses (used_at);

-- +goose Down
DROP TABLE upload_url_uses;
