-- +goose Up
-- Received invoices by mail (issue 29): each buyer's receiving address, a random local
-- part on the receiving domain (INBOUND_MAIL_DOMAIN). Renewing retires the address at
-- once (the buyer renews because it leaked), so at most one is active per buyer; a
-- retired local part is never given out again (UNIQUE over all rows).
CREATE TABLE receiving_addresses (
    id          BIGSERIAL PRIMARY KEY,
    buyer_id    BIGINT NOT NULL REFERENCES buyers (id),
    local_part  TEXT NOT NULL UNIQUE CHECK (local_part ~ '^[a-z0-9]{12,40}$'),
    created_by  BIGINT,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    retired_at  TIMESTAMPTZ
);
CREATE UNIQUE INDEX receiving_addresses_active_idx ON receiving_addresses (buyer_id) WHERE retired_at IS NULL;

-- Every mail the listener took for an address, accepted or refused after its data was
-- read: the buyer's log of what arrived, the hourly limit's count, and whether a sender
-- was seen before (new_sender). refusals lists each refused attachment's name and the
-- reason, or the whole mail's reason.
CREATE TABLE inbound_mails (
    id            BIGSERIAL PRIMARY KEY,
    buyer_id      BIGINT NOT NULL REFERENCES buyers (id),
    address_id    BIGINT NOT NULL REFERENCES receiving_addresses (id),
    envelope_from TEXT NOT NULL DEFAULT '' CHECK (length(envelope_from) <= 320),
    from_address  TEXT NOT NULL DEFAULT '' CHECK (length(from_address) <= 320),
    from_name     TEXT NOT NULL DEFAULT '' CHECK (length(from_name) <= 200),
    subject       TEXT NOT NULL DEFAULT '' CHECK (length(subject) <= 500),
    message_id    TEXT NOT NULL DEFAULT '' CHECK (length(message_id) <= 500),
    auth_spf      TEXT NOT NULL DEFAULT 'none' CHECK (auth_spf IN ('pass', 'fail', 'none')),
    auth_dkim     TEXT NOT NULL DEFAULT 'none' CHECK (auth_dkim IN ('pass', 'fail', 'none')),
    auth_dmarc    TEXT NOT NULL DEFAULT 'none' CHECK (auth_dmarc IN ('pass', 'fail', 'none')),
    outcome       TEXT NOT NULL CHECK (outcome IN ('accepted', 'partly', 'refused')),
    attachments   INT NOT NULL DEFAULT 0 CHECK (attachments >= 0),
    accepted      INT NOT NULL DEFAULT 0 CHECK (accepted >= 0 AND accepted <= attachments),
    refusals      JSONB NOT NULL DEFAULT '[]',
    bounced       BOOLEAN NOT NULL DEFAULT false,
    received_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX inbound_mails_address_idx ON inbound_mails (address_id, received_at DESC);
CREATE INDEX inbound_mails_buyer_idx ON inbound_mails (buyer_id, id DESC);
CREATE INDEX inbound_mails_sender_idx ON inbound_mails (buyer_id, from_address) WHERE accepted > 0;
-- A mail delivered twice (the MTA retried after a lost reply) is taken once.
CREATE UNIQUE INDEX inbound_mails_message_idx ON inbound_mails (address_id, message_id) WHERE message_id <> '';

-- +goose Down
DROP TABLE inbound_mails;
DROP TABLE receiving_addresses;
