-- +goose Up
-- Operators are invited, never made by one administrator (issue 24). A change that gives
-- power — inviting an operator, granting or removing a role, re-enabling a disabled
-- operator — is a proposal by one administrator that a different administrator approves
-- or rejects; the database refuses a proposal decided by its proposer. An approved
-- invitation mails a single-use link (only its SHA-256 is kept) where the invitee sets
-- their own password and enrols their own authenticator, whose secret waits here sealed
-- (auth.Sealer) until then: no administrator ever sees either.
CREATE TABLE operator_proposals (
    id            BIGSERIAL PRIMARY KEY,
    kind          TEXT NOT NULL CHECK (kind IN ('invite', 'grant', 'revoke', 'enable')),
    -- The operator changed (grant, revoke, enable); an invitation's operator does not
    -- exist yet (operator_invites.operator_id once enrolled).
    operator_id   BIGINT REFERENCES operators (id),
    email_address TEXT NOT NULL DEFAULT '',
    name          TEXT NOT NULL DEFAULT '',
    -- invite: the roles given; grant and revoke: the one role.
    roles         TEXT[] NOT NULL DEFAULT '{}' CHECK (roles <@ ARRAY['screening', 'transfers', 'admin']::TEXT[]),
    proposed_by   BIGINT NOT NULL REFERENCES operators (id),
    proposed_at   TIMESTAMPTZ NOT NULL,
    status        TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
    decided_by    BIGINT REFERENCES operators (id),
    decided_at    TIMESTAMPTZ,
    CHECK ((kind = 'invite') = (operator_id IS NULL)),
    CHECK ((status = 'pending') = (decided_by IS NULL)),
    CHECK (decided_by <> proposed_by)
);
-- One pending invitation per address.
CREATE UNIQUE INDEX operator_proposals_invite_key ON operator_proposals (lower(email_address))
    WHERE kind = 'invite' AND status = 'pending';
CREATE INDEX operator_proposals_pending_idx ON operator_proposals (proposed_at, id) WHERE status = 'pending';

CREATE TABLE operator_invites (
    id                 BIGSERIAL PRIMARY KEY,
    proposal_id        BIGINT NOT NULL UNIQUE REFERENCES operator_proposals (id),
    token_hash         TEXT NOT NULL UNIQUE,
    totp_secret_sealed TEXT NOT NULL,
    expires_at         TIMESTAMPTZ NOT NULL,
    used_at            TIMESTAMPTZ,
    operator_id        BIGINT UNIQUE REFERENCES operators (id),
    CHECK ((used_at IS NULL) = (operator_id IS NULL))
);

-- +goose Down
DROP TABLE operator_invites;
DROP TABLE operator_proposals;
