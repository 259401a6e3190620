-- +goose Up
-- When each user accepted each version of the terms of service (issue 31). users.terms_version
-- stays the gate's one fact (the version in force for that user); this is its record: the
-- sign-up's acceptance (written with the registration, at the moment the box was ticked)
-- and every later one (the re-acceptance after a revision), for /myaccount and for an
-- investigation. A version is accepted once per user; accepting it again keeps the first.
-- Users who accepted before this table existed have no row: their date is not known, and
-- none is made up.
CREATE TABLE terms_acceptances (
    id          BIGSERIAL PRIMARY KEY,
    buyer_id    BIGINT NOT NULL REFERENCES buyers (id) ON DELETE CASCADE,
    user_id     BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    version     INT NOT NULL CHECK (version >= 1),
    accepted_at TIMESTAMPTZ NOT NULL,
    UNIQUE (user_id, version)
);
CREATE INDEX terms_acceptances_buyer_idx ON terms_acceptances (buyer_id, user_id);

-- +goose Down
DROP TABLE terms_acceptances;
